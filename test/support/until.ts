/**
 * Waits across event-loop turns (no timers) until `done()` holds: for what arrives over a socket, which
 * takes an unknown number of turns; the test's own timeout bounds it.
 */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}
