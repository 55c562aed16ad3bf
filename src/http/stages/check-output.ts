import { noteOn, type Exchange } from "../exchange.js";
import { RawJson } from "../raw-json.js";
import { eventMismatch, jsonMismatch, reportMismatch } from "../response-check.js";
import { HangUp, Reply, SseReply, TextReply, type SseSink } from "../route.js";

/**
 * Checks the answer against what its route declares (MockOptions.checkResponses; on in the project's
 * tests): a JSON body, errors included, against the schema of its status, and each event of a stream
 * as it is written. A mismatch is noted on the request's journal entry and reported (response-check.ts).
 * Answers a fault rule made in the route's stead are not the route's, and are not checked.
 */
export function checkOutput(x: Exchange): void {
  const route = x.route;
  if (!route || x.faulted || !x.answer) return;
  const value = x.answer.value;
  const { module, spec } = route;
  const report = (message: string | undefined) => {
    if (message === undefined) return;
    const note = x.note?.response_mismatches as string[] | undefined;
    if (note) note.push(message);
    else noteOn(x.res, { response_mismatches: [message] });
    reportMismatch(message);
  };
  if (value instanceof TextReply || value instanceof HangUp) return;
  if (value instanceof SseReply) {
    const open = value.open;
    const status = 200;
    x.answer = {
      value: new SseReply((sink) => open(checkedSink(sink, (frame) => report(eventMismatch(module, spec, status, frame)))), value.headers, value.stallMs, value.headNow),
    };
    return;
  }
  const [status, body] = value instanceof Reply ? [value.status, value.body] : [Number(Object.keys(spec.responses)[0] ?? 200), value];
  if (body === undefined || (!(value instanceof Reply) && spec.responses[status] === null)) return;
  report(jsonMismatch(module, spec, status, body instanceof RawJson ? JSON.parse(body.text) : body));
}

/** The sink with each event checked before it is written. */
function checkedSink(sink: SseSink, check: (frame: string) => void): SseSink {
  return {
    event: (text) => {
      check(text);
      sink.event(text);
    },
    raw: (text) => sink.raw(text),
    heartbeat: (text) => sink.heartbeat(text),
    flushed: (then) => sink.flushed(then),
    get started() {
      return sink.started;
    },
    end: () => sink.end(),
    drop: () => sink.drop(),
  };
}
