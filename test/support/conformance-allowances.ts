import type { TranscriptDifference } from "./transcript-diff.js";

/**
 * The differences between the mock and the open-source JS in-memory Agent Server that
 * docs/decisions/conformance-js-vs-python.md explains, one allowance per note and place
 * (test/conformance/js-server-replay.test.ts checks that each is used and that each note exists;
 * test/conformance/recording-replay.test.ts reuses them for what is the mock's own behaviour).
 */
export interface Allowance {
  /** The numbered note of docs/decisions/conformance-js-vs-python.md that explains the difference. */
  note: number;
  /** Session steps it applies to (default: every step). */
  steps?: RegExp;
  /** Paths of the differences it claims (TranscriptDifference.path). */
  paths: RegExp;
  /** Only differences with exactly these two values (JS, mock). */
  values?: [unknown, unknown];
  /** The note says the mock does not do this yet. */
  gap?: true;
}

const STREAM_STEPS = /^runs\.(stream|joinStream)/;
const THREAD_STREAM_STEPS = /^runs\.stream (values|resume|resumable)/;
const RUN_STEPS = /^runs\.(list|get|create background)/;
const STATE_STEPS = /^threads\.(getState|getHistory)/;
const THREAD_STEPS = /^threads\.(create|get|search|copy)\b(?!.*State|.*History)/;
const ERROR_JSON_TYPE = /^error: (threads\.get unknown thread|runs\.stream on an unknown thread|runs\.create with an unknown assistant|threads\.create duplicate id)$/;

export const ALLOWANCES: Allowance[] = [
  // Streams
  { note: 1, steps: STREAM_STEPS, paths: /^response\.body\.(lineEnding|multiLineData)$/ },
  { note: 2, steps: /^runs\.(stream values|stream resume)/, paths: /^response\.body\.(hasIds|blocks\.\d+\(\w+(-\w+)?\)\.id)$/ },
  // The session's `lastEventId: "1"` is a JS id; the mock's ids are `<ms>-<seq>`, so it names no event and
  // the join replays the resumable run from its start (as a Redis stream read after "1" would).
  { note: 2, steps: /^runs\.joinStream resumable with lastEventId$/, paths: /^response\.body\.blocks\./ },
  { note: 4, steps: STREAM_STEPS, paths: /^response\.headers\.(cache-control|content-type|x-accel-buffering|keep-alive)$/ },
  { note: 5, steps: THREAD_STREAM_STEPS, paths: /^response\.headers\.location$/ },
  { note: 6, steps: /^runs\.joinStream/, paths: /^response\.headers\.content-location$/ },
  { note: 8, steps: /^runs\.stream stateless/, paths: /^response\.body\.blocks\.1\(messages\/complete\)$/ },
  { note: 9, steps: /^runs\.stream stateless/, paths: /^response\.body\.blocks\.\d+\(error\)$/ },
  { note: 10, steps: /^runs\.joinStream background run$/, paths: /^response\.body$/ },
  // Runs
  { note: 11, steps: /^runs\.wait/, paths: /^response\.headers\.(content-type|transfer-encoding|content-length|location)$/ },
  { note: 14, steps: /^runs\.join\b/, paths: /^response\.headers\.(content-location|location)$/ },
  { note: 12, steps: RUN_STEPS, paths: /^response\.body(\.\d+)?\.multitask_strategy$/ },
  { note: 13, steps: RUN_STEPS, paths: /^response\.body(\.\d+)?\.kwargs\.(?!config\.metadata)/ },
  { note: 33, steps: /^runs\.(wait|join background)/, paths: /^response\.body\.(messages|__interrupt__)$/ },
  { note: 34, steps: /^runs\.list$/, paths: /^response\.body\.\d+\.kwargs\.(input|command|stream_mode\.\d+)$/ },
  // Threads, history, checkpoints
  { note: 16, steps: STATE_STEPS, paths: /^response\.body(\.\d+)?\.metadata\.(ls_integration|writes|langgraph_request_id)$/ },
  { note: 16, steps: STATE_STEPS, paths: /^response\.body(\.\d+)?\.metadata\.langgraph_(version|api_version|plan|host|api_url)$/ },
  // The server's URL in the graph's message metadata: no scenario template names the mock's own origin.
  { note: 16, steps: /^runs\.stream (values|stateless)/, paths: /\.langgraph_api_url$/, gap: true },
  { note: 18, steps: /^threads\.copy$/, paths: /^response\.body\.metadata\.thread_id$/ },
  { note: 35, steps: STATE_STEPS, paths: /^response\.body(\.\d+)?\.interrupts$/ },
  // A node's task result is the update its scenario step wrote, message ids included (LangGraph's
  // reducer gives an id to a message a node returns without one).
  { note: 36, steps: STATE_STEPS, paths: /^response\.body(\.\d+)?\.tasks\.\d+\.result\.messages\.\d+\.id$/ },
  // Messages as Python's langchain_core serialises them: every field, `name: null` included; JS leaves unset ones out.
  { note: 43, steps: STATE_STEPS, paths: /^response\.body(\.\d+)?\.values\.messages\.\d+\.name$/, values: [undefined, null] },
  { note: 37, steps: THREAD_STEPS, paths: /^response\.body(\.\d+)?\.(state_updated_at|values|interrupts|config\.configurable)$/ },
  // Search and pagination

  { note: 21, paths: /^response\.headers\.access-control-(allow-origin|expose-headers)$/ },
  { note: 38, paths: /^response\.headers\.content-type$/, values: ["application/json", "application/json; charset=utf-8"] },
  // Errors
  { note: 22, steps: /^error: threads\.get unknown thread$/, paths: /^response\.body$/ },
  { note: 23, steps: /^error: runs\.stream on an unknown thread$/, paths: /^response\.(status|body)$/ },
  { note: 24, steps: /^error: runs\.create with an unknown assistant$/, paths: /^response\.(status|body)$/ },
  { note: 25, steps: /^error: threads\.get with a malformed id$/, paths: /^response\.(status|body\.(success|error|detail))$/ },
  { note: 26, steps: /^error: threads\.create duplicate id$/, paths: /^response\.body$/ },
  { note: 27, steps: /^error: runs\.create with an invalid body$/, paths: /^response\.(status|body\.(success|error|detail))$/ },
  { note: 28, steps: ERROR_JSON_TYPE, paths: /^response\.headers\.content-type$/ },
  { note: 28, steps: /^store\.(put|delete)Item$/, paths: /^response\.headers\.content-type$/ },
  // Crons, store, system, assistants
  { note: 29, steps: /^crons\./, paths: /^response\./ },
  { note: 31, steps: /^system: GET \/info$/, paths: /^response\.body\./ },
  { note: 39, steps: /^assistants\.getGraph/, paths: /^response\.body\.edges\.\d+\.conditional$/, values: [false, undefined] },
];

export function claims(allowance: Allowance, difference: TranscriptDifference): boolean {
  if (allowance.values !== undefined && JSON.stringify([difference.expected, difference.actual]) !== JSON.stringify(allowance.values)) return false;
  return (allowance.steps?.test(difference.step) ?? true) && allowance.paths.test(difference.path);
}

