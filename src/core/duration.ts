const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses "250ms", "5s", "5m", "1h30m", "2d" or a bare number of milliseconds.
 * Returns undefined for anything else, so callers can answer with their own error shape.
 */
export function parseDuration(input: unknown): number | undefined {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? input : undefined;
  if (typeof input !== "string") return undefined;
  const text = input.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = text.match(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g);
  if (!parts || parts.join("") !== text) return undefined;
  let total = 0;
  for (const part of parts) {
    const [, amount, unit] = part.match(/^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/) as RegExpMatchArray;
    total += Number(amount) * (UNITS[unit as string] as number);
  }
  return total;
}
