import type { Client } from "@langchain/langgraph-sdk";

/**
 * The fixed client session of the conformance transcripts (issue 9 item 5, issue 12 item 4).
 *
 * conformance/capture.mjs runs it against the open-source JS in-memory Agent Server through a recording
 * proxy; a later test runs the very same calls against the mock and compares the normalised transcripts.
 * It lives here, not in conformance/, so both sides share one definition. It imports only types: the caller
 * hands in the SDK client, so the capture script (with its own node_modules) and the project's tests each
 * use their own installed copy.
 *
 * Every call is awaited in turn so the transcript order is the call order. Calls the server may refuse
 * (crons on the JS server, the error probes, and calls whose result the session does not use, such as
 * the graph and schema reads) are caught: the refusal is what the transcript records, and the session
 * goes on, so one missing route on a server under test shows as one difference, not as a lost transcript.
 */

export interface SessionDeps {
  /** A client pointed at the recording proxy, with retries off (`callerOptions: { maxRetries: 0 }`). */
  client: Client;
  /** Base URL of the recording proxy, for the calls the SDK has no method for (/ok, /info, error probes). */
  baseUrl: string;
  /** Labels the exchanges that follow, until the next call. */
  step(name: string): void;
}

/** The graph the session drives: conformance/graph/agent.mts (respond → approve (interrupt) → finish). */
export const CONFORMANCE_GRAPH_ID = "agent";

/** A well-formed thread id that no server has: the 404 probe. */
const MISSING_THREAD_ID = "00000000-0000-4000-8000-000000000000";

const userInput = { messages: [{ role: "user", content: "hi" }] };

/** Drains a stream; the transcript keeps the bytes, the session only needs it finished. */
async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _part of stream) {
    // nothing: the proxy records the raw SSE text
  }
}

/** A call the SDK has no method for; the body is read so the exchange completes. */
async function raw(baseUrl: string, path: string, init?: RequestInit): Promise<void> {
  const res = await fetch(`${baseUrl}${path}`, init);
  await res.text();
}

/** Runs a call whose failure is the expected answer, so the session goes on. */
async function refused(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch {
    // the status and body are in the transcript
  }
}

export async function runConformanceSession({ client, baseUrl, step }: SessionDeps): Promise<void> {
  step("system: GET /ok");
  await raw(baseUrl, "/ok");
  step("system: GET /info");
  await raw(baseUrl, "/info");

  step("assistants.search by graph_id");
  const found = await client.assistants.search({ graphId: CONFORMANCE_GRAPH_ID, limit: 10 });
  const assistantId = found[0]?.assistant_id;
  if (assistantId === undefined) throw new Error(`no assistant for graph ${CONFORMANCE_GRAPH_ID}`);
  step("assistants.get");
  await client.assistants.get(assistantId);
  step("assistants.getGraph");
  await refused(() => client.assistants.getGraph(assistantId));
  step("assistants.getGraph xray");
  await refused(() => client.assistants.getGraph(assistantId, { xray: true }));
  step("assistants.getSchemas");
  await refused(() => client.assistants.getSchemas(assistantId));

  step("threads.create");
  const thread = await client.threads.create({ metadata: { purpose: "conformance" } });
  const threadId = thread.thread_id;

  step("runs.stream values+updates+messages-tuple+custom (ends at the interrupt)");
  let firstRunId: string | undefined;
  await drain(
    client.runs.stream(threadId, CONFORMANCE_GRAPH_ID, {
      input: userInput,
      streamMode: ["values", "updates", "messages-tuple", "custom"],
      onRunCreated: ({ run_id }) => {
        firstRunId = run_id;
      },
    }),
  );
  step("threads.get (interrupted)");
  await client.threads.get(threadId);
  step("threads.getState (interrupted)");
  await client.threads.getState(threadId);

  step("runs.stream resume via command, values+updates");
  await drain(client.runs.stream(threadId, CONFORMANCE_GRAPH_ID, { command: { resume: "yes" }, streamMode: ["values", "updates"] }));

  step("runs.list");
  await client.runs.list(threadId);
  if (firstRunId !== undefined) {
    step("runs.get");
    await client.runs.get(threadId, firstRunId);
  }
  step("threads.getState (done)");
  await client.threads.getState(threadId);
  step("threads.getHistory default limit");
  await client.threads.getHistory(threadId);
  step("threads.getHistory limit 2");
  await client.threads.getHistory(threadId, { limit: 2 });
  step("threads.search");
  await client.threads.search({ metadata: { purpose: "conformance" }, limit: 10 });

  step("threads.copy");
  const copy = await client.threads.copy(threadId);
  step("threads.getState of the copy");
  await client.threads.getState(copy.thread_id);
  step("threads.getHistory of the copy");
  await client.threads.getHistory(copy.thread_id);

  step("runs.stream stateless, legacy messages mode");
  await drain(client.runs.stream(null, CONFORMANCE_GRAPH_ID, { input: userInput, streamMode: ["messages"] }));

  step("threads.create (for runs.wait)");
  const waitThread = await client.threads.create();
  step("runs.wait (ends at the interrupt)");
  await client.runs.wait(waitThread.thread_id, CONFORMANCE_GRAPH_ID, { input: userInput });

  step("threads.create (background run)");
  const bgThread = await client.threads.create();
  step("runs.create background, values+updates");
  const bgRun = await client.runs.create(bgThread.thread_id, CONFORMANCE_GRAPH_ID, { input: userInput, streamMode: ["values", "updates"] });
  step("runs.joinStream background run");
  await drain(client.runs.joinStream(bgThread.thread_id, bgRun.run_id));
  step("runs.join background run");
  await client.runs.join(bgThread.thread_id, bgRun.run_id);

  step("threads.create (resumable stream)");
  const resumableThread = await client.threads.create();
  step("runs.stream resumable, updates");
  let resumableRunId: string | undefined;
  await drain(
    client.runs.stream(resumableThread.thread_id, CONFORMANCE_GRAPH_ID, {
      input: userInput,
      streamMode: ["updates"],
      streamResumable: true,
      onRunCreated: ({ run_id }) => {
        resumableRunId = run_id;
      },
    }),
  );
  if (resumableRunId !== undefined) {
    step("runs.joinStream resumable with lastEventId");
    await drain(client.runs.joinStream(resumableThread.thread_id, resumableRunId, { lastEventId: "1" }));
  }

  step("store.putItem");
  await client.store.putItem(["conformance", "notes"], "greeting", { text: "hello" });
  step("store.getItem");
  await client.store.getItem(["conformance", "notes"], "greeting");
  step("store.searchItems");
  await client.store.searchItems(["conformance"], { limit: 10 });
  step("store.listNamespaces");
  await client.store.listNamespaces({ prefix: ["conformance"] });
  step("store.deleteItem");
  await client.store.deleteItem(["conformance", "notes"], "greeting");
  step("store.getItem after delete");
  await refused(() => client.store.getItem(["conformance", "notes"], "greeting"));

  step("crons.create");
  await refused(() => client.crons.create(assistantId, { schedule: "*/5 * * * *", input: userInput }));
  step("crons.createForThread");
  await refused(() => client.crons.createForThread(threadId, assistantId, { schedule: "*/5 * * * *", input: userInput }));
  step("crons.search");
  await refused(() => client.crons.search({ assistantId }));
  step("crons.delete");
  await refused(() => client.crons.delete(MISSING_THREAD_ID));

  step("error: threads.get unknown thread");
  await refused(() => client.threads.get(MISSING_THREAD_ID));
  step("error: runs.stream on an unknown thread");
  await refused(() => drain(client.runs.stream(MISSING_THREAD_ID, CONFORMANCE_GRAPH_ID, { input: userInput })));
  step("error: runs.create with an unknown assistant");
  await refused(() => client.runs.create(threadId, "no-such-graph", { input: userInput }));
  step("error: threads.get with a malformed id");
  await refused(() => client.threads.get("not-a-uuid"));
  step("error: threads.create duplicate id");
  await refused(() => client.threads.create({ threadId, ifExists: "raise" }));
  step("error: runs.create with an invalid body");
  await raw(baseUrl, `/threads/${threadId}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: CONFORMANCE_GRAPH_ID, stream_mode: "not-a-mode" }),
  });
}
