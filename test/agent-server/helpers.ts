/** Polls a condition across event-loop turns (no timers): the mock schedules its work with setImmediate. */
export async function waitFor(condition: () => boolean, turns = 500): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error("condition not reached");
}
