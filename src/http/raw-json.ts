/**
 * A JSON answer already serialised, sent as it is: records are immutable between writes, so a read
 * path can keep each record's text and compose a page from them instead of re-serialising every
 * record on every request (docs/performance.md). The text must be exactly what `res.json` would
 * have written for the same value.
 */
export class RawJson {
  constructor(readonly text: string) {}
}
