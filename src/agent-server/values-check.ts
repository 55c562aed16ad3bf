import type { LoadProblem } from "../core/load-error.js";
import { isPlainObject, toPointer } from "../core/json.js";
import type { Channels } from "./reducers.js";

/**
 * `validate`'s warning (docs/scenarios.md "The state model"): a scripted root `values` event that
 * disagrees with what the reducers make of the steps before it. The run's input is not known when a
 * file is checked, so what is compared is what the steps wrote since the turn began or since the
 * last scripted `values` (the state from then on): a last-value channel must hold the value last
 * written, an `append` channel must end with what was appended, an `add_messages` channel must hold
 * each written message (by id, else by type and content) and none it removed. A value holding a
 * template is not compared. `channels` are the reducers of the scenario's graph (MessagesState's
 * when it is not known). A warning, not an error: the scripted event stays the state.
 */
export function valuesWarnings(file: string, path: (string | number)[], scenario: Record<string, unknown>, channels: Channels): LoadProblem[] {
  const turns = Array.isArray(scenario.turns) ? scenario.turns.map((t, i) => ({ turn: t as unknown, base: ["turns", i] as (string | number)[] })) : [{ turn: scenario as unknown, base: [] as (string | number)[] }];
  const out: LoadProblem[] = [];
  for (const { turn, base } of turns) {
    if (!isPlainObject(turn) || !Array.isArray(turn.events)) continue;
    let written: Written = new Map();
    turn.events.forEach((event, e) => {
      if (!isPlainObject(event) || typeof event.event !== "string" || !isPlainObject(event.data)) return;
      const data = event.data;
      if (event.step === false) return;
      if (typeof event.step === "string") record(written, data, channels);
      else if (event.event === "updates") for (const node of Object.keys(data)) if (!node.startsWith("__")) record(written, data[node], channels);
      if (event.event !== "values") return;
      const key = firstDifference(written, data, channels);
      if (key !== undefined) {
        out.push({ file, pointer: toPointer([...path, ...base, "events", e, "data"]), reason: `scripted values disagree with the state the reducers give at this point: key "${key}" (the steps before wrote ${JSON.stringify(written.get(key)?.value).slice(0, 120)})` });
      }
      written = new Map();
    });
  }
  return out;
}

/** What the steps wrote to each channel since the state was last known. */
type Written = Map<string, { value: unknown; removed?: Set<string> }>;

function record(written: Written, update: unknown, channels: Channels): void {
  if (!isPlainObject(update)) return;
  for (const key of Object.keys(update)) {
    const value = update[key];
    const reducer = Object.hasOwn(channels, key) ? channels[key] : "last_value";
    const before = written.get(key);
    if (reducer === "last_value" || reducer === undefined) written.set(key, { value });
    else if (reducer === "append") written.set(key, { value: [...((before?.value as unknown[]) ?? []), ...(Array.isArray(value) ? value : [value])] });
    else {
      const removed = before?.removed ?? new Set<string>();
      const list = [...((before?.value as unknown[]) ?? [])];
      for (const m of Array.isArray(value) ? value : [value]) {
        if (isPlainObject(m) && m.type === "remove" && typeof m.id === "string") removed.add(m.id);
        else list.push(m);
      }
      written.set(key, { value: list, removed });
    }
  }
}

/** The first channel the scripted state does not hold as written, if any. */
function firstDifference(written: Written, state: Record<string, unknown>, channels: Channels): string | undefined {
  for (const [key, { value, removed }] of written) {
    if (hasTemplate(value)) continue;
    const reducer = Object.hasOwn(channels, key) ? channels[key] : "last_value";
    const got = state[key];
    if (reducer === "last_value" || reducer === undefined) {
      if (!Object.hasOwn(state, key) || !sameJson(got, value)) return key;
    } else if (reducer === "append") {
      const items = value as unknown[];
      if (!Array.isArray(got) || got.length < items.length || !sameJson(got.slice(got.length - items.length), items)) return key;
    } else {
      const list = Array.isArray(got) ? got.filter(isPlainObject) : [];
      for (const m of value as unknown[]) if (!holdsMessage(list, m)) return key;
      for (const id of removed ?? []) if (list.some((x) => x.id === id)) return key;
    }
  }
  return undefined;
}

/** A written message is in the list: by id, else a message of its type with its content. */
function holdsMessage(list: Record<string, unknown>[], m: unknown): boolean {
  if (typeof m === "string") return list.some((x) => x.content === m);
  if (!isPlainObject(m)) return true;
  const found = typeof m.id === "string" ? list.find((x) => x.id === m.id) : list.find((x) => sameJson(x.content, m.content ?? ""));
  return found !== undefined && (m.content === undefined || sameJson(found.content, m.content));
}

function hasTemplate(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes("{{");
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  return JSON.stringify(value ?? null);
}
