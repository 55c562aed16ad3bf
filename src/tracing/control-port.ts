import type { MockContext } from "../context.js";
import type { EventBus } from "../core/event-bus.js";
import { capturedFeedback, toCaptured, type CapturedFeedback, type FeedbackFilter } from "./captured-feedback.js";
import { feedbackIn } from "./feedback-records.js";
import { capturedTraces, type CapturedTrace, type TraceFilter } from "./trace-views.js";
import { traceStoreOf } from "./trace-store.js";

/** What MockControl and the change feed may use of the tracing service; app.ts wires it. */
export interface TracingControl {
  /** Feedback recorded through token URLs and the LangSmith API, in arrival order. */
  feedback(filter: FeedbackFilter): CapturedFeedback[];
  /** Forgets captured feedback; returns how many records went. */
  clearFeedback(): number;
  /** Calls `listener` after each change to the captured feedback; returns the unsubscribe. */
  onFeedback(listener: () => void): () => void;
  /** The captured runs in trace order. */
  traces(filter: TraceFilter): CapturedTrace[];
  /** Captured runs (and updates waiting for their run) dropped to stay within the trace cap since the last reset. */
  droppedTraces(): number;
  /** Forgets captured runs and projects; returns how many runs went. */
  clearTraces(): number;
  /** Reports each change to the captured feedback on the change feed (the trace store reports its own). */
  feedChanges(bus: EventBus): void;
}

export function tracingControl(ctx: MockContext): TracingControl {
  const feedback = feedbackIn(ctx);
  return {
    feedback: (filter) => capturedFeedback(ctx, filter),
    clearFeedback() {
      const deleted = feedback.size;
      feedback.clear();
      return deleted;
    },
    onFeedback: (listener) => feedback.subscribe(() => listener()),
    traces: (filter) => capturedTraces(ctx, filter),
    droppedTraces: () => traceStoreOf(ctx).dropped,
    clearTraces() {
      const store = traceStoreOf(ctx);
      const deleted = store.size;
      store.clear();
      return deleted;
    },
    feedChanges(bus) {
      feedback.subscribe((id, record, previous) => {
        if (id === undefined) return bus.emit("feedback.cleared", () => ({}));
        if (!record) return bus.emit("feedback.deleted", () => ({ id }));
        bus.emit(previous ? "feedback.updated" : "feedback.recorded", () => toCaptured(record));
      });
    },
  };
}
