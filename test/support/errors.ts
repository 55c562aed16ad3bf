/** One entry of a FastAPI (pydantic v2) 422 body. `input` defaults to null, as for missing fields. */
export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** The 422 body FastAPI sends for these problems: `{detail: [...]}` in the order given. */
export function fastApi422(...issues: Issue[]): { detail: Issue[] } {
  return { detail: issues.map((i) => ({ input: null, ...i })) };
}

/** A missing field or parameter, as pydantic words it. */
export function missing(...loc: (string | number)[]): Issue {
  return { type: "missing", loc, msg: "Field required", input: null };
}
