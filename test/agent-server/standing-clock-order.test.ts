import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { BUNDLED_SCENARIOS, startMockServer, type MockServer } from "../../src/index.js";

/**
 * With a seed the clock stands still, so everything a test creates has the same `created_at`. Lists
 * must still come back as the real servers give them — newest first, i.e. reverse creation order
 * (ascending sorts: creation order) — not in the order of their random ids.
 */
let mock: MockServer;
let client: Client;
const input = { messages: [{ role: "user", content: "hi" }] };

beforeAll(async () => {
  mock = await startMockServer({ seed: 42, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
  client = new Client({ apiUrl: mock.url });
});
beforeEach(() => mock.reset());
afterAll(() => mock.close());

it("threads.search: newest first by default, creation order ascending", async () => {
  const made: string[] = [];
  for (let i = 0; i < 6; i++) made.push((await client.threads.create({ metadata: { i } })).thread_id);
  expect(new Set((await client.threads.search()).map((t) => t.created_at)).size).toBe(1);
  expect((await client.threads.search()).map((t) => t.thread_id)).toEqual([...made].reverse());
  expect((await client.threads.search({ sortBy: "created_at", sortOrder: "asc" })).map((t) => t.thread_id)).toEqual(made);
  expect((await client.threads.search({ limit: 2, offset: 1 })).map((t) => t.thread_id)).toEqual([made[4], made[3]]);
});

it("runs.list: a thread's runs newest first", async () => {
  const thread = await client.threads.create();
  const made: string[] = [];
  for (let i = 0; i < 6; i++) made.push((await client.runs.create(thread.thread_id, "agent", { input, multitaskStrategy: "enqueue" })).run_id);
  expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([...made].reverse());
  expect(new Set(made).size).toBe(6);
});

it("assistants.search and crons.search: newest first on created_at, creation order ascending", async () => {
  const assistants: string[] = [];
  for (let i = 0; i < 4; i++) assistants.push((await client.assistants.create({ graphId: "agent", name: `a${i}` })).assistant_id);
  const found = (await client.assistants.search({ sortBy: "created_at", sortOrder: "desc", limit: 4 })).map((a) => a.assistant_id);
  expect(found).toEqual([...assistants].reverse());
  expect((await client.assistants.search({ sortBy: "created_at", sortOrder: "asc", limit: 10 })).map((a) => a.assistant_id).slice(-4)).toEqual(assistants);

  const crons: string[] = [];
  for (let i = 0; i < 4; i++) crons.push((await client.crons.create("agent", { schedule: "0 9 * * *", input })).cron_id);
  expect((await client.crons.search({ sortBy: "created_at", sortOrder: "desc" })).map((c) => c.cron_id)).toEqual([...crons].reverse());
  expect((await client.crons.search({ sortBy: "created_at", sortOrder: "asc" })).map((c) => c.cron_id)).toEqual(crons);
});
