/**
 * Whole-number flags are read as strings and parsed here, so that an error can quote what was
 * typed (`--port abc` → `got "abc"`) instead of what a number coercion made of it (NaN).
 */
export function wholeNumber(flag: string, raw: unknown, min: number, max: number, what: string): number | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`--${flag} must be ${what}; got ${JSON.stringify(text)}`);
  }
  return value;
}

export const port = (flag: string, raw: unknown) => wholeNumber(flag, raw, 0, 65535, "a whole number from 0 to 65535");
