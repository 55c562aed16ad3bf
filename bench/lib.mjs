// Small helpers shared by the benches: timing summaries and heap readings.

/** Runs fn `n` times (after `warmup` runs) and returns p50/p95/max in ms. */
export async function time(n, fn, warmup = Math.min(50, n)) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { n, p50: at(0.5), p95: at(0.95), max: samples[samples.length - 1] };
}

export function heapMb() {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

export function report(label, { n, p50, p95, max }) {
  console.log(`${label.padEnd(48)} n=${String(n).padStart(5)}  p50 ${p50.toFixed(3)} ms  p95 ${p95.toFixed(3)} ms  max ${max.toFixed(3)} ms`);
}
