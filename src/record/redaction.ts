import { isPlainObject, setOwn } from "../core/json.js";

/** What a redacted value is written as: visibly not the original, and easy to grep for before sharing. */
export const REDACTED = "[redacted]";

/** Keys whose string values are credentials (suffix match, so `input_tokens` counts stay numbers and stay). */
const SECRET_KEY = /(^|[_-])(api[_-]?key|token|access[_-]?token|refresh[_-]?token|secret|client[_-]?secret|password|passwd|authorization|cookie|credentials?)$/i;
/** Credential shapes worth catching wherever they sit in text: provider API keys and bearer tokens. */
const SECRET_TEXT = [/\b(?:sk|lsv2|ls__|ghp|gho|xox[abpr])[-_][A-Za-z0-9_-]{12,}/g, /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g];

/**
 * Removes secrets from recorded data before it is written to disk: values under credential-named keys,
 * credential-shaped text, and every exact occurrence of the strings the recorder was told are secret
 * (its own `--api-key`, so a key echoed back by the server never lands in a file).
 */
export class Redactor {
  private readonly known: string[];
  constructor(knownSecrets: readonly (string | undefined)[]) {
    // Short strings would blank out ordinary words; a real key is long.
    this.known = knownSecrets.filter((s): s is string => typeof s === "string" && s.length >= 8);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.known) out = out.split(secret).join(REDACTED);
    for (const pattern of SECRET_TEXT) out = out.replace(pattern, REDACTED);
    return out;
  }

  json(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = value[key];
        setOwn(out, key, typeof item === "string" && SECRET_KEY.test(key) ? REDACTED : this.json(item));
      }
      return out;
    }
    return value;
  }
}
