/**
 * What the control surface (`MockControl`, and `RemoteMock` over `/_mock`) throws when it cannot do
 * what it was asked: a request it cannot act on (400), something that does not exist (404), a
 * `waitFor` that timed out (408), a state that does not allow it (409), a document that does not load
 * (422, with its problems) or a mock that closed while a `waitFor` waited (503). `RemoteMock` throws it
 * too for any other refusal of the admin API (401 without the admin token, …). `/_mock` answers with
 * its status and `{"detail": …}` — one message for both surfaces. A wrong argument (an unknown filter
 * key, a clock value that is no duration) is a `TypeError`, as JavaScript has it.
 */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.name = "ControlError";
  }
}

/**
 * The filter keys of each listing, for both surfaces (the library refuses others before anything
 * runs; `/_mock` declares the same keys on its routes' `query` schemas, which a test holds equal).
 */
export const FILTER_KEYS = {
  feedback: ["key", "run_id", "thread_id", "token_id"],
  request: ["method", "path", "status", "route", "limit"],
  run: ["thread_id", "scenario", "status"],
} as const satisfies Record<string, readonly string[]>;

/**
 * Refuses a filter that is not an object of known keys — a misspelt filter would otherwise match
 * everything — with a TypeError naming the key and the accepted ones.
 */
export function requireKnownKeys(what: keyof typeof FILTER_KEYS, filter: unknown): void {
  const known: readonly string[] = FILTER_KEYS[what];
  const accepted = known.map((k) => JSON.stringify(k)).join(", ");
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    throw new TypeError(`a ${what} filter must be an object with any of ${accepted}; got ${Array.isArray(filter) ? "an array" : JSON.stringify(filter)}`);
  }
  const unknown = Object.keys(filter).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new TypeError(`unknown ${what} filter ${unknown.map((k) => JSON.stringify(k)).join(", ")}; the filters are ${accepted}`);
  }
}
