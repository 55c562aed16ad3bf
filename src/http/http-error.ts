/**
 * An error that answers the request with a given status and JSON body. Each service builds these
 * through its own catalogue (`src/<service>/errors.ts`), so the bodies have that service's real shape.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === "object" && body && "detail" in body ? JSON.stringify((body as { detail: unknown }).detail) : String(body));
    this.name = "HttpError";
  }
}

/** One entry of a FastAPI/pydantic 422 body. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** `{"detail": "<text>"}` — FastAPI's HTTPException shape, used by all three Python services. */
export function detailError(status: number, detail: string, headers?: Record<string, string>): HttpError {
  return new HttpError(status, { detail }, headers);
}

/** `422 {"detail": [ … ]}` — FastAPI's RequestValidationError shape. */
export function validationError(issues: ValidationIssue[]): HttpError {
  return new HttpError(422, { detail: issues });
}
