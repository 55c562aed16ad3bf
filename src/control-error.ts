/**
 * What the control surface (`MockControl`) throws when it cannot do what it was asked: a bad argument
 * (400), something that does not exist (404), a state that does not allow it (409) or a document that
 * does not load (422, with its problems). The library hands it to the caller; `/_mock` answers with
 * its status and `{"detail": …}` — one message for both surfaces.
 */
export class ControlError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 422,
    readonly detail: unknown,
  ) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.name = "ControlError";
  }
}

/** Refuses filter keys a listing does not know: a misspelt filter would otherwise match everything. */
export function requireKnownKeys(what: string, filter: object, known: readonly string[]): void {
  const unknown = Object.keys(filter).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new ControlError(400, `unknown ${what} filter ${unknown.map((k) => JSON.stringify(k)).join(", ")}; the filters are ${known.map((k) => JSON.stringify(k)).join(", ")}`);
  }
}
