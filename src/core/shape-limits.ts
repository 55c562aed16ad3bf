/**
 * Limits on the shape of client data: how deep it nests and how many values it holds once expanded.
 * Deeply nested data overflows the stack of every recursive walker (JSON.stringify, structuredClone,
 * ajv) long after it was accepted, so it is refused at the door instead; YAML aliases can make a
 * small file expand to millions of values, so documents are measured by their expanded size.
 */

/** Deepest nesting of objects and arrays accepted in a body or a file (real payloads stay far below it). */
export const MAX_DEPTH = 64;

/** Most values (scalars, objects and arrays, aliases counted each time they are used) in one document. */
export const MAX_NODES = 1_000_000;

/**
 * The deepest nesting of `[` and `{` in JSON text, outside strings. Stops counting (and returns a
 * value past the limit) as soon as `limit` is passed, so it never walks more than the text.
 */
export function jsonTextDepth(text: string | Buffer, limit = MAX_DEPTH): number {
  const s = typeof text === "string" ? text : text.toString("latin1");
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** What is wrong with a value's shape, or undefined when it is within the limits. */
export function shapeProblem(value: unknown, limits: { depth?: number; nodes?: number } = {}): string | undefined {
  const maxDepth = limits.depth ?? MAX_DEPTH;
  const maxNodes = limits.nodes ?? MAX_NODES;
  // Iterative, so that the check itself cannot overflow the stack; shared (aliased) values are
  // walked every time they appear, which is what measures their expanded size.
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  while (stack.length) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (++nodes > maxNodes) return `more than ${maxNodes} values once expanded (YAML aliases count each time they are used)`;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > maxDepth) return `nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return undefined;
}
