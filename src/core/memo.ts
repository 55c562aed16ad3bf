/**
 * `make` remembered per key for the life of the process. For what every mock of a process builds
 * the same from the same key — each start declares the same few hundred routes — and keeps no state:
 * the keys must be few and fixed (route paths, body limits), since nothing is ever forgotten.
 */
export function perProcess<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined && !made.has(key)) made.set(key, (value = make(key)));
    return value as V;
  };
}
