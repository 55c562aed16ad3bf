import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { startMockServer, type MockServer } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { waitFor } from "./helpers.js";
import { expectFits } from "../support/schema-assert.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

type AnyClient = InstanceType<typeof Client2>;
const SDKS: [string, (url: string) => AnyClient][] = [
  ["@langchain/langgraph-sdk 2.0.0", (url) => new Client2({ apiUrl: url })],
  ["@langchain/langgraph-sdk 1.15 (langgraph-sdk-1)", (url) => new Client1({ apiUrl: url }) as unknown as AnyClient],
];

const chat: ScenarioInput = {
  name: "chat",
  match: { input: { say: "hi" } },
  events: [{ event: "values", data: { messages: [{ id: "m1", type: "human", content: "hi" }, { id: "m2", type: "ai", content: "hello" }] } }],
};
const slow: ScenarioInput = { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { done: true }, delay_ms: 60_000 }] };
const quick: ScenarioInput = { name: "quick", priority: -1, events: [{ event: "values", data: { quick: true } }] };

const THREAD = "agent-server/thread.json#/$defs/Thread";
const RUN = "agent-server/run.json#/$defs/Run";

describe.each(SDKS)("thread and run operations through %s", (_name, makeClient) => {
  let mock: MockServer;
  let client: AnyClient;
  const runStatus = (runId: string) => runsIn(contextOf(mock.control)).get(runId)?.status;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 21, fixtures: false, scenarios: [chat, slow, quick], clock: { autoAdvance: false } });
    client = makeClient(mock.url);
  });
  beforeEach(() => mock.control.reset());
  afterAll(async () => {
    await mock.close();
  });

  it("threads.count, threads.copy and threads.updateState", async () => {
    const thread = await client.threads.create({ metadata: { owner: "ana" } });
    await client.runs.wait(thread.thread_id, "agent", { input: { say: "hi" } });
    await client.threads.create();
    expect(await client.threads.count()).toBe(2);
    expect(await client.threads.count({ metadata: { owner: "ana" } })).toBe(1);

    const copy = await client.threads.copy(thread.thread_id);
    expectFits(THREAD, copy);
    expect(copy).toMatchObject({ status: "idle", metadata: { owner: "ana" } });
    const sourceState = await client.threads.getState(thread.thread_id);
    const copyState = await client.threads.getState(copy.thread_id);
    expect(copyState.values).toEqual(sourceState.values);
    expect(copyState.checkpoint).toEqual({ ...sourceState.checkpoint, thread_id: copy.thread_id });

    // The SDK types the answer as `{configurable}`; the real server sends `checkpoint` and `checkpoint_id` besides.
    const updated = (await client.threads.updateState(copy.thread_id, { values: { messages: [{ id: "m3", type: "human", content: "and?" }] }, asNode: "human" })) as unknown as Record<string, unknown>;
    const ref = { thread_id: copy.thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String) };
    expect(updated).toEqual({ checkpoint: ref, configurable: ref, checkpoint_id: expect.any(String) });
    const after = await client.threads.getState(copy.thread_id);
    expect(after.checkpoint.checkpoint_id).toBe(updated.checkpoint_id);
    expect((after.values as { messages: unknown[] }).messages).toHaveLength(3);
    expect(after.metadata).toMatchObject({ source: "update", writes: { human: { messages: [{ id: "m3" }] } } });
    // The source thread is untouched.
    expect((await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id).toBe(sourceState.checkpoint.checkpoint_id);

    // A fork from the source's first checkpoint through the SDK's `checkpoint` option.
    const forked = await client.threads.updateState(copy.thread_id, { values: { note: "fork" }, checkpoint: { ...sourceState.checkpoint, thread_id: copy.thread_id } });
    const history = await client.threads.getHistory(copy.thread_id, { limit: 10 });
    expect(history[0]!.checkpoint.checkpoint_id).toBe(forked.configurable?.checkpoint_id);
    expect(history[0]!.parent_checkpoint?.checkpoint_id).toBe(sourceState.checkpoint.checkpoint_id);
  });

  it("runs.delete and runs.createBatch", async () => {
    const batch = await client.runs.createBatch([
      { assistantId: "agent", input: { n: 1 } },
      { assistantId: "agent", input: { n: 2 }, metadata: { second: true } },
    ]);
    expect(batch).toHaveLength(2);
    for (const run of batch) expectFits(RUN, run);
    expect(batch[1]!.metadata).toEqual({ created_by: "system", graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", second: true });
    await waitFor(() => batch.every((r) => runStatus(r.run_id) === "success"));

    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", { input: { n: 3 } });
    await waitFor(() => runStatus(run.run_id) === "success");
    expect(await client.runs.delete(thread.thread_id, run.run_id)).toBeUndefined();
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
  });

  it("runs.cancelMany and threads.prune where the SDK has them (1.x)", async () => {
    const sdk = client as AnyClient & {
      runs: { cancelMany?: (o: { threadId?: string; runIds?: string[]; status?: string; action?: string }) => Promise<unknown> };
      threads: { prune?: (ids: string[], o?: { strategy?: string }) => Promise<{ pruned_count: number }> };
    };
    if (!sdk.runs.cancelMany || !sdk.threads.prune) {
      // SDK 2.0.0 has neither method: both routes are covered over HTTP (thread-operations, run-operations tests).
      expect(sdk.runs.cancelMany ?? sdk.threads.prune).toBeUndefined();
      return;
    }
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", { input: { slow: true } });
    await waitFor(() => runStatus(run.run_id) === "running");
    expect(await sdk.runs.cancelMany({ threadId: thread.thread_id, runIds: [run.run_id] })).toBeUndefined();
    await waitFor(() => runStatus(run.run_id) === "interrupted");
    await expect(sdk.runs.cancelMany({ status: "running" })).rejects.toThrow(/404/);

    expect(await sdk.threads.prune([thread.thread_id])).toEqual({ pruned_count: 1 });
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404/);
  });
});
