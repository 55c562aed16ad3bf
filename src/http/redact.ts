/**
 * Credentials the request journal does not show (DESIGN §11): the journal is readable by anyone who
 * can reach `/_mock/requests`, and tests often print it. `journal.showSecrets` turns this off.
 */
export const REDACTED = "[redacted]";

const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "cookie"]);

/** A copy of the headers with credential values replaced. */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    Object.defineProperty(out, name, { value: SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Body text with `client_secret` values replaced, in JSON (`"client_secret": "…"`) and in forms
 * (`client_secret=…`). Works on text so that truncated previews and malformed bodies are covered too.
 */
export function redactBodyText(text: string): string {
  if (!text.includes("client_secret")) return text;
  return text
    .replace(/("client_secret"\s*:\s*)"(?:[^"\\]|\\.)*"/g, `$1"${REDACTED}"`)
    .replace(/(^|&)(client_secret=)[^&]*/g, `$1$2${encodeURIComponent(REDACTED)}`);
}
