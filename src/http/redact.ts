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

/** Body keys whose values the journal hides (compared once decoded, in any case). */
const SECRET_KEYS = new Set(["client_secret"]);
/** A JSON string key and its value (a string or a bare scalar), in text that may be cut short. */
const JSON_PAIR = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"|[^\s,}\]]+)/g;
/** A form field `key=value`. */
const FORM_PAIR = /(^|&)([^=&]*)=([^&]*)/g;

/**
 * Body text with the values of credential keys replaced, in JSON (`"client_secret": "…"`) and in
 * forms (`client_secret=…`). Keys are compared once decoded (`"client\u005fsecret"`,
 * `client%5Fsecret`), as the service reading the body would see them. Works on text so that
 * truncated previews and malformed bodies are covered too.
 */
export function redactBodyText(text: string): string {
  // Most bodies name no secret in any spelling: an escape or a percent sign could hide one.
  if (!/secret|[\\%]/i.test(text)) return text;
  return redactSecretLists(text)
    .replace(JSON_PAIR, (pair, key: string, colon: string) => (SECRET_KEYS.has(jsonKey(key)) ? `"${key}"${colon}"${REDACTED}"` : pair))
    .replace(FORM_PAIR, (pair, start: string, key: string) => (SECRET_KEYS.has(formKey(key)) ? `${start}${key}=${encodeURIComponent(REDACTED)}` : pair));
}

/** A JSON key that opens a list. */
const LIST_KEY = /"((?:[^"\\]|\\.)*)"\s*:\s*\[/g;

/**
 * A deployment's `secrets` (`[{"name", "value"}]`): each `value` is a credential, its `name` is not.
 * A list cut short (a truncated preview) is redacted to its end.
 */
function redactSecretLists(text: string): string {
  let out = "";
  let from = 0;
  for (const m of text.matchAll(LIST_KEY)) {
    if (m.index < from || jsonKey(m[1] as string) !== "secrets") continue;
    const start = m.index + m[0].length;
    const end = listEnd(text, start);
    out += text.slice(from, start) + text.slice(start, end).replace(JSON_PAIR, (pair, key: string, colon: string) => (jsonKey(key) === "value" ? `"${key}"${colon}"${REDACTED}"` : pair));
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Where the list opened just before `at` closes (its `]`), strings skipped; the text's end if it does not. */
function listEnd(text: string, at: number): number {
  let depth = 1;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return i;
  }
  return text.length;
}

function jsonKey(raw: string): string {
  if (!raw.includes("\\")) return raw.toLowerCase();
  try {
    return (JSON.parse(`"${raw}"`) as string).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

function formKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " ")).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}
