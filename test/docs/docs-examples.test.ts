import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type Scenario } from "../../src/index.js";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");
/** The code block after `<!-- example:NAME -->` in a page. */
const example = (page: string, name: string) => new RegExp(`<!-- example:${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(read(page))?.[1];

it("docs/first-test.md's test is test/docs/first-test.test.ts, word for word (only the import differs)", () => {
  const test = read("test/docs/first-test.test.ts");
  expect(example("docs/first-test.md", "first-test")).toBe(test.replace('from "../../src/index.js";', 'from "agent-platform-mock";'));
});

it("docs/scenarios.md's messages-tuple example streams its chunks through the SDK, then the state", async () => {
  const scenario = parse(example("docs/scenarios.md", "messages-tuple") ?? "") as Scenario;
  await using mock = await startMockServer({ seed: 42, fixtures: false, scenarios: [scenario] });
  const client = new Client({ apiUrl: mock.url });
  const thread = await client.threads.create();
  const parts: { event: string; data: unknown }[] = [];
  for await (const part of client.runs.stream(thread.thread_id, "agent", { input: { messages: [{ role: "user", content: "weather?" }] }, streamMode: "messages-tuple" })) {
    parts.push(part);
  }
  const runId = (parts[0]!.data as { run_id: string }).run_id;
  const metadata = { langgraph_node: "agent", langgraph_step: 1, langgraph_triggers: ["branch:to:agent"], ls_model_name: "gpt-4o-mini" };
  expect(parts.map((p) => p.event)).toEqual(["metadata", "messages", "messages"]);
  expect(parts.slice(1).map((p) => p.data)).toEqual([
    [{ type: "AIMessageChunk", id: `ai-${runId}`, content: "It's sunny" }, metadata],
    [{ type: "AIMessageChunk", id: `ai-${runId}`, content: " in Paris." }, metadata],
  ]);
  const state = await client.threads.getState(thread.thread_id);
  expect(state.values).toMatchObject({ messages: [{ type: "human", content: "weather?" }, { type: "ai", id: `ai-${runId}`, content: "It's sunny in Paris." }] });
});
