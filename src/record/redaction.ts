import { isPlainObject, setOwn } from "../core/json.js";

/** What a redacted value is written as: visibly not the original, and easy to grep for before sharing. */
export const REDACTED = "[redacted]";

/**
 * Credential key names, compared after folding case and dropping every character that is not a letter
 * or digit, so `openaiApiKey`, `OPENAI_API_KEY`, `openai-api-key` and `openai.api.key` all read
 * `openaiapikey`. A key is a credential when its folded name ends with one of SECRET_KEY_ENDINGS or
 * contains one of SECRET_KEY_PARTS. Listed in docs/recording.md ("Keep secrets out").
 */
export const SECRET_KEY_ENDINGS = [
  "apikey",
  "apitoken",
  "token",
  "secret",
  "secretkey",
  "accesskey",
  "privatekey",
  "signingkey",
  "encryptionkey",
  "sessionkey",
  "masterkey",
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "authorization",
  "auth",
  "cookie",
  "credential",
  "credentials",
  "signature",
  "sessionid",
  "bearer",
  "jwt",
] as const;
export const SECRET_KEY_PARTS = ["secret", "password", "passwd", "credential", "apikey", "privatekey", "accesskey"] as const;

/** Folded names whose ending looks like a credential but are not one (counts and cursors of the SDKs). */
const NOT_SECRET_KEYS = new Set(["tokens", "maxtokens", "totaltokens", "inputtokens", "outputtokens"]);

/** True when values under `key` are credentials (see SECRET_KEY_ENDINGS). */
export function isSecretKey(key: string): boolean {
  const folded = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (folded === "" || NOT_SECRET_KEYS.has(folded)) return false;
  return SECRET_KEY_ENDINGS.some((end) => folded.endsWith(end)) || SECRET_KEY_PARTS.some((part) => folded.includes(part));
}

/**
 * Credential shapes caught wherever they sit in text, listed in docs/recording.md. Each is specific
 * enough not to blank out ordinary prose; `Basic` is checked further by decoding (see `basic`).
 */
const SECRET_TEXT: readonly RegExp[] = [
  // PEM private keys, whole blocks.
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g,
  // JWT (and JWS/JWE compact forms): a base64url JSON header, a payload, an optional signature.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  // Provider keys: OpenAI/Anthropic/Stripe `sk-`/`sk_`, LangSmith, Slack, Hugging Face, GitHub tokens.
  /\b(?:sk|rk|lsv2|ls__|xox[abpre]|hf)[-_][A-Za-z0-9_-]{12,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  // AWS access key ids (the secret key itself has no shape of its own; it is caught by its key name).
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b/g,
  // Google API keys, OAuth access tokens and OAuth client secrets.
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  /\bGOCSPX-[0-9A-Za-z_-]{20,}/g,
  // `Bearer <token>` in headers quoted as text.
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
];
/** `name=value` / `name: value` pairs in text (env files, query strings, logs) whose name is a credential's: the value goes. */
const SECRET_PAIR = /(\b[A-Za-z0-9_.-]*(?:secret|password|passwd|api[_-]?key|access[_-]?key|private[_-]?key|token)["']?\s*[:=]\s*["']?)[^\s"'&,;]{8,}/gi;
/** `Basic <base64 of user:password>`: replaced only when the text decodes to such a pair. */
const BASIC = /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})/g;
/** Credentials in URLs: `scheme://user:password@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi;

/** How many secrets seen in client headers are kept at once (the most recent); the configured key is always kept. */
const MAX_REMEMBERED = 64;
/**
 * Known secrets this long or longer are redacted wherever they appear, inside words too. Shorter ones
 * are redacted where they stand as a token of their own (see `tokenPattern`): a short key still never
 * reaches a file, while the same few letters inside other words are left (docs/decisions/security.md).
 */
const ANYWHERE_LENGTH = 8;

/** A known secret, and for a short one the pattern of its occurrences as a token. */
interface Known {
  secret: string;
  token?: RegExp;
}

/**
 * Removes secrets from recorded data before it is written to disk: values under credential-named keys
 * (every string nested under them too), credential-shaped text, and every occurrence of the strings
 * the recorder knows are secret — its own `--api-key` and the credentials clients sent in headers,
 * whatever their length — so a key echoed back by the server never lands in a file.
 */
export class Redactor {
  private readonly fixed: Known[];
  private readonly remembered: Known[] = [];

  constructor(knownSecrets: readonly (string | undefined)[]) {
    this.fixed = knownSecrets.filter((s): s is string => typeof s === "string" && s !== "").map(known);
  }

  /** Keeps a credential a client sent (a header value) so its occurrences in data are redacted too. */
  remember(secret: string | undefined): void {
    if (!secret || this.fixed.some((k) => k.secret === secret)) return;
    const at = this.remembered.findIndex((k) => k.secret === secret);
    this.remembered.push(at >= 0 ? (this.remembered.splice(at, 1)[0] as Known) : known(secret));
    if (this.remembered.length > MAX_REMEMBERED) this.remembered.shift();
  }

  text(value: string): string {
    let out = value;
    // Longest first, so a secret that contains another is removed whole.
    for (const { secret, token } of [...this.fixed, ...this.remembered].sort((a, b) => b.secret.length - a.secret.length)) {
      out = token ? out.replace(token, REDACTED) : out.split(secret).join(REDACTED);
    }
    for (const pattern of SECRET_TEXT) out = out.replace(pattern, REDACTED);
    out = out.replace(SECRET_PAIR, `$1${REDACTED}`);
    out = out.replace(BASIC, (found, encoded: string) => (isBasicPair(encoded) ? `Basic ${REDACTED}` : found));
    return out.replace(URL_USERINFO, `$1${REDACTED}@`);
  }

  json(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = value[key];
        setOwn(out, this.text(key), isSecretKey(key) ? hideStrings(item) : this.json(item));
      }
      return out;
    }
    return value;
  }
}

function known(secret: string): Known {
  return secret.length >= ANYWHERE_LENGTH ? { secret } : { secret, token: tokenPattern(secret) };
}

/** A letter, digit or combining mark, of any script: what joins characters into one word. */
const WORD_CHAR = String.raw`[\p{L}\p{N}\p{M}]`;

/**
 * A short secret's occurrences that are not glued to a letter or digit: a whole JSON value or key, or
 * a token in text (`key=k3y!pw&`, `"k3y!pw"`, `k3y!pw_2`), not `xk3y!pw` or `k3y!pwd` (other words).
 * An edge of the secret that is punctuation needs no boundary: it is one already.
 */
function tokenPattern(secret: string): RegExp {
  const chars = Array.from(secret);
  const isWord = new RegExp(WORD_CHAR, "u");
  const before = isWord.test(chars[0] as string) ? `(?<!${WORD_CHAR})` : "";
  const after = isWord.test(chars[chars.length - 1] as string) ? `(?!${WORD_CHAR})` : "";
  return new RegExp(`${before}${secret.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")}${after}`, "gu");
}

/** Every string under a credential key becomes REDACTED; numbers, booleans and the shape stay. */
function hideStrings(value: unknown): unknown {
  if (typeof value === "string") return REDACTED;
  if (Array.isArray(value)) return value.map(hideStrings);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(out, key, hideStrings(value[key]));
    return out;
  }
  return value;
}

function isBasicPair(encoded: string): boolean {
  if (encoded.length % 4 !== 0) return false;
  const decoded = Buffer.from(encoded, "base64").toString("latin1");
  return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(decoded);
}
