import type { NormalSseBlock, Transcript } from "./transcript-normalise.js";

/**
 * Differences between two normalised transcripts of the same client session (test/conformance/*), one
 * entry per leaf that differs, so a test can hold each one against a declared reason.
 *
 * Placeholders are compared by kind only (`<uuid:3>` equals `<uuid:7>`): two servers mint different
 * numbers of ids (checkpoints, messages, tasks), so the numbering by first appearance drifts between
 * them, and a numbering drift is no behaviour. Event lists of SSE bodies are aligned by event name
 * (longest common subsequence) so one extra event is one difference, not a cascade.
 */
export interface TranscriptDifference {
  /** Index of the exchange in the session. */
  exchange: number;
  step: string;
  /** Where, e.g. `response.headers.cache-control`, `response.body.blocks.3(values).data.messages.1.id`. */
  path: string;
  /** The value on each side; `undefined` when that side has no such key, event or exchange. */
  expected: unknown;
  actual: unknown;
}

const PLACEHOLDER = /<(uuid|hex|event-id):\d+>/g;

function canonical(value: unknown): unknown {
  return typeof value === "string" ? value.replace(PLACEHOLDER, "<$1>") : value;
}

/** An object's entries under canonical keys; keys that become equal are told apart by their order (`<uuid>#2`). */
function canonicalKeys(value: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, item] of Object.entries(value)) {
    const base = canonical(key) as string;
    let name = base;
    for (let n = 2; out.has(name); n++) name = `${base}#${n}`;
    out.set(name, item);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isSseBlocks(path: string, value: unknown): value is NormalSseBlock[] {
  return path.endsWith("response.body.blocks") && Array.isArray(value);
}

function blockName(block: NormalSseBlock): string {
  return "comment" in block ? ":" : String(block.event);
}

/** Pairs of indexes (or -1 for no partner) aligning two event lists by name, in order. */
function align(a: NormalSseBlock[], b: NormalSseBlock[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] = blockName(a[i] as NormalSseBlock) === blockName(b[j] as NormalSseBlock) ? (lcs[i + 1] as number[])[j + 1]! + 1 : Math.max((lcs[i + 1] as number[])[j]!, row[j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && blockName(a[i] as NormalSseBlock) === blockName(b[j] as NormalSseBlock)) pairs.push([i++, j++]);
    else if (j >= m || (i < n && (lcs[i + 1] as number[])[j]! >= (lcs[i] as number[])[j + 1]!)) pairs.push([i++, -1]);
    else pairs.push([-1, j++]);
  }
  return pairs;
}

function compare(expected: unknown, actual: unknown, path: string, out: { path: string; expected: unknown; actual: unknown }[]): void {
  if (isSseBlocks(path, expected) && isSseBlocks(path, actual)) {
    for (const [i, j] of align(expected, actual)) {
      const a = i < 0 ? undefined : expected[i];
      const b = j < 0 ? undefined : actual[j];
      const name = blockName((a ?? b) as NormalSseBlock);
      const at = `${path}.${i < 0 ? `+${j}` : i}(${name})`;
      if (a === undefined || b === undefined) out.push({ path: at, expected: a, actual: b });
      else compare(a, b, at, out);
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let i = 0; i < length; i++) {
      if (i >= expected.length || i >= actual.length) out.push({ path: `${path}.${i}`, expected: expected[i], actual: actual[i] });
      else compare(expected[i], actual[i], `${path}.${i}`, out);
    }
    return;
  }
  if (isObject(expected) && isObject(actual)) {
    // Keys are compared in canonical form too: the JS server keys data by ids (`messages/metadata` by message id).
    const a = canonicalKeys(expected);
    const b = canonicalKeys(actual);
    for (const key of new Set([...a.keys(), ...b.keys()])) {
      const at = `${path}.${key}`;
      if (a.has(key) && b.has(key)) compare(a.get(key), b.get(key), at, out);
      else out.push({ path: at, expected: a.get(key), actual: b.get(key) });
    }
    return;
  }
  if (canonical(expected) !== canonical(actual) || typeof expected !== typeof actual) out.push({ path, expected, actual });
}

/** Every difference between two normalised transcripts, exchange by exchange (the sessions must line up by step). */
export function diffTranscripts(expected: Transcript, actual: Transcript): TranscriptDifference[] {
  const out: TranscriptDifference[] = [];
  const length = Math.max(expected.exchanges.length, actual.exchanges.length);
  for (let index = 0; index < length; index++) {
    const a = expected.exchanges[index];
    const b = actual.exchanges[index];
    const step = (a ?? b)?.step ?? "";
    if (a === undefined || b === undefined || a.step !== b.step) {
      out.push({ exchange: index, step, path: "exchange", expected: a?.step, actual: b?.step });
      continue;
    }
    const found: { path: string; expected: unknown; actual: unknown }[] = [];
    compare(a.request, b.request, "request", found);
    compare(a.response, b.response, "response", found);
    for (const difference of found) out.push({ exchange: index, step, ...difference });
  }
  return out;
}
