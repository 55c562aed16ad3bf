import { yaml } from "./lazy-modules.js";
import type { LoadProblem } from "./load-error.js";

/**
 * Sets each problem's line: where the value its pointer names starts in the YAML source, or its
 * nearest parent that exists (a missing key is reported on the object that lacks it). The source is
 * read again only when a file has problems, so loading good files costs nothing.
 */
export function addYamlLines(text: string, found: readonly LoadProblem[]): void {
  const starts = valueStarts(text);
  for (const problem of found) {
    const parts = problem.pointer.split("/");
    for (let n = parts.length; n >= 1; n--) {
      const offset = starts.get(parts.slice(0, n).join("/"));
      if (offset === undefined) continue;
      problem.line = text.slice(0, offset).split("\n").length;
      break;
    }
  }
}

/** Where each value of the document starts, by JSON pointer ("" for the document itself). */
function valueStarts(text: string): Map<string, number> {
  const { parseEvents, getScalarValue, EVENT_ID } = yaml();
  const starts = new Map<string, number>();
  // The collections being read: a collection's pointer (undefined inside a key that is itself a
  // collection), its next item's index and, in a mapping, the key whose value comes next.
  const open: { pointer: string | undefined; mapping: boolean; index: number; key: string | undefined }[] = [];
  const COLLECTION_KEY = "\u0000";
  let events;
  try {
    events = parseEvents(text, {});
  } catch {
    return starts;
  }
  for (const event of events) {
    if (event.type === EVENT_ID.DOCUMENT) continue;
    if (event.type === EVENT_ID.POP) {
      open.pop();
      continue;
    }
    const collection = event.type === EVENT_ID.SEQUENCE || event.type === EVENT_ID.MAPPING;
    const parent = open[open.length - 1];
    if (parent?.mapping && parent.key === undefined) {
      parent.key = event.type === EVENT_ID.SCALAR ? getScalarValue(text, event) : COLLECTION_KEY;
      if (collection) open.push({ pointer: undefined, mapping: event.type === EVENT_ID.MAPPING, index: 0, key: undefined });
      continue;
    }
    let pointer: string | undefined = "";
    if (parent) {
      const key = parent.mapping ? parent.key : String(parent.index++);
      parent.key = undefined;
      pointer = parent.pointer === undefined || key === COLLECTION_KEY ? undefined : `${parent.pointer}/${(key as string).replace(/~/g, "~0").replace(/\//g, "~1")}`;
    }
    if (pointer !== undefined) starts.set(pointer, collection ? event.start : event.type === EVENT_ID.SCALAR ? event.valueStart : event.anchorStart);
    if (collection) open.push({ pointer, mapping: event.type === EVENT_ID.MAPPING, index: 0, key: undefined });
  }
  return starts;
}
