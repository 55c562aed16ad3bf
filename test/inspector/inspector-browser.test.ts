import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { Client } from "@langchain/langgraph-sdk";
import { Client as LangSmith } from "langsmith";
import { startMockServer, type MockServer } from "../../src/index.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { formatProblem, type LoadProblem } from "../../src/core/load-error.js";
import { CHROMIUM, NO_CHROMIUM, needChromium } from "../support/chromium.js";
import { runTracedAgent } from "../support/traced-agent.js";

/**
 * The inspector page driven in Chromium (docs/inspector.md; test/support/chromium.ts finds it, and
 * without one these tests are skipped, except under CI=true). One browser for the file, a fresh context
 * per test. Screenshots go to a temporary folder; with UPDATE_SCREENSHOTS=1 they
 * replace the ones docs/inspector.md shows (docs/images/).
 */
const SHOTS = process.env.UPDATE_SCREENSHOTS ? fileURLToPath(new URL("../../docs/images/", import.meta.url)) : mkdtempSync(join(tmpdir(), "inspector-shots-"));

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const json = (res: Response): Promise<any> => res.json();
const user = (content: string) => ({ messages: [{ role: "user", content }] });
const SCENARIOS = [
  {
    name: "slow-weather",
    description: "Answers a weather question after 1.5 s of mock time",
    match: { input: { messages: [{ content: { $contains: "weather" } }] } },
    events: [
      { event: "values", data: { messages: [{ type: "human", id: "m1", content: "{{input.messages.0.content}}" }] } },
      {
        event: "values",
        delay_ms: 1500,
        data: { messages: [{ type: "human", id: "m1", content: "{{input.messages.0.content}}" }, { type: "ai", id: "m2", content: "Sunny, 21 °C in Paris." }] },
      },
    ],
  },
  {
    name: "quick-thanks",
    match: { input: { messages: [{ content: { $contains: "thanks" } }] } },
    events: [{ event: "values", data: { messages: [{ type: "ai", id: "m3", content: "You're welcome!" }] } }],
  },
];

let browser: Browser;
let mock: MockServer;
let client: Client;
let context: BrowserContext;
let page: Page;
/** Every URL the page asked for: all must be the mock's own. */
let requested: string[];

beforeAll(async () => {
  // Stream delays wait for the test to move the clock, so the page can be watched mid-run.
  mock = await startMockServer({ seed: 42, scenarios: SCENARIOS, lifecycle: "timed", lifecycleStep: "30s", clock: { autoAdvance: false } });
  client = new Client({ apiUrl: mock.url });
  if (!CHROMIUM) {
    if (process.env.CI === "true") throw new Error(`${NO_CHROMIUM} (CI=true requires the browser tests to run)`);
    return;
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  if (!process.env.UPDATE_SCREENSHOTS) rmSync(SHOTS, { recursive: true, force: true });
});

beforeEach(async (ctx) => {
  needChromium(ctx);
  mock.reset();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  requested = [];
  page.on("request", (r) => requested.push(r.url()));
});

afterEach(async () => {
  if (!browser) return;
  await context.close();
  expect(requested.length).toBeGreaterThan(0);
  expect(requested.filter((url) => !url.startsWith(`${mock.url}/`))).toEqual([]);
});

/** Opens a section and waits until the page follows the change feed. */
async function openInspector(hash: string): Promise<void> {
  await page.goto(`${mock.inspectorUrl}${hash}`);
  await page.locator('#live[data-state="live"]').waitFor();
}

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

async function collectRun(stream: AsyncIterable<{ event: string }>): Promise<string[]> {
  const events: string[] = [];
  for await (const chunk of stream) events.push(chunk.event);
  return events;
}

async function createThread(): Promise<string> {
  return (await client.threads.create()).thread_id;
}

describe("inspector in Chromium", () => {
  it("GET / in a browser links to the inspector; API clients still get 404", async () => {
    await page.goto(`${mock.url}/`);
    await page.getByRole("link", { name: "inspector" }).click();
    await page.locator('#live[data-state="live"]').waitFor();
    expect(new URL(page.url()).pathname).toBe("/_mock/ui");
    const api = await fetch(`${mock.url}/`, { headers: { accept: "application/json" } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: "Not Found" });
  });

  it("a run streamed by the SDK appears live, with its events on the mock's clock, its ending and its feedback URL", async () => {
    await openInspector("#/runs");
    expect(await page.locator("#runs-list").textContent()).toContain("No runs yet");
    const thread = await createThread();
    const chunks: { event: string; data: unknown }[] = [];
    const streamed = (async () => {
      for await (const chunk of client.runs.stream(thread, "agent", { input: user("What's the weather in Paris?"), streamMode: "values", feedbackKeys: ["user_liked"] })) chunks.push(chunk);
    })();

    // The run shows up without a reload, still running: its second event waits for the clock.
    const row = page.locator("#runs-list tr[data-run]");
    await row.locator(".badge", { hasText: "running" }).waitFor();
    const runId = (await row.getAttribute("data-run"))!;
    expect(await row.textContent()).toContain("slow-weather");
    await row.getByRole("link").click();
    await page.locator("#run-title", { hasText: runId }).waitFor();
    const timeline = page.locator("#run-timeline > li");
    await timeline.nth(1).waitFor();
    expect(await timeline.count()).toBe(2);
    expect(await page.locator("#run-ending").textContent()).toContain("Streaming");

    mock.clock.advance("1500ms");
    await page.locator("#run-ending", { hasText: "Ended" }).waitFor();
    await streamed;
    const names = await page.locator("#run-timeline .ev-name").allTextContents();
    expect(names).toEqual(["metadata", "values", "values", "feedback"]);
    expect(chunks.map((c) => c.event)).toEqual(["metadata", "values", "values", "feedback"]);
    const offsets = await page.locator("#run-timeline .ev-offset").allTextContents();
    expect(offsets).toEqual(["+0.000 s", "+0.000 s", "+1.500 s", "+1.500 s"]);
    expect(await page.locator("#run-ending .badge").textContent()).toBe("success");
    const feedbackUrl = (chunks.at(-1)!.data as Record<string, string>).user_liked!;
    expect(await page.locator("#run-feedback-urls").textContent()).toContain(feedbackUrl);

    // The payload is pretty-printed when the event is opened (keyboard: focus the summary, Enter).
    await page.locator("#run-timeline summary").nth(2).focus();
    await page.keyboard.press("Enter");
    const payload = await page.locator("#run-timeline details[open] pre").textContent();
    expect(JSON.parse(payload!)).toMatchObject({ messages: [{ content: "What's the weather in Paris?" }, { type: "ai", content: "Sunny, 21 °C in Paris." }] });
    expect(payload).toContain('\n  "messages": [');
    await shot("inspector-run");

    // The list, newest first, with a second run still waiting for the clock.
    for await (const _ of client.runs.stream(thread, "agent", { input: user("thanks!") }));
    const second = collectRun(client.runs.stream(await createThread(), "agent", { input: user("And the weather tomorrow?") }));
    await page.goto(`${mock.inspectorUrl}#/runs`);
    const rows = page.locator("#runs-list tr[data-run]");
    await rows.nth(2).waitFor();
    await rows.nth(0).locator(".badge", { hasText: "running" }).waitFor();
    expect(await rows.locator("td:nth-child(3)").allTextContents()).toEqual(["slow-weather", "quick-thanks", "slow-weather"]);
    await shot("inspector-runs");
    mock.clock.advance("1500ms");
    expect(await second).toEqual(["metadata", "values", "values"]);
    await rows.nth(0).locator(".badge", { hasText: "success" }).waitFor();
  });

  it("feedback posted through a token URL appears live and links to its run, and back", async () => {
    const thread = await createThread();
    // Only the SDK's stream() sends feedback_keys.
    for await (const _ of client.runs.stream(thread, "agent", { input: user("thanks!"), feedbackKeys: ["user_liked", "helpful"] }));
    const run = (await json(await fetch(`${mock.url}/_mock/runs?scenario=quick-thanks`))).items[0];
    await openInspector("#/feedback");
    expect(await page.locator("#feedback-list").textContent()).toContain("No feedback captured yet");

    const posted = await fetch(run.feedback_urls.user_liked, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 1, comment: "Spot on" }) });
    expect(posted.status).toBe(200);
    const row = page.locator("#feedback-list tr[data-feedback]");
    await row.waitFor();
    expect(await row.locator("td").allTextContents()).toEqual([expect.any(String), "user_liked", "1", "—", "Spot on", `…${run.run_id.slice(-8)}`, "quick-thanks", "token URL (POST)"]);
    await shot("inspector-feedback");

    // Feedback → run: the run shows the feedback it received…
    await row.getByRole("link", { name: run.run_id.slice(-8) }).click();
    await page.locator("#run-title", { hasText: run.run_id }).waitFor();
    expect(await page.locator("#run-feedback").textContent()).toContain("user_liked score 1 — “Spot on”");
    expect(await page.locator("#run-feedback-urls").textContent()).toContain(run.feedback_urls.helpful);
    // …and run → feedback: its link opens the feedback list filtered to that run.
    await page.locator("#run-feedback a", { hasText: "user_liked" }).click();
    await page.locator("#feedback-list tr[data-feedback]").waitFor();
    expect(await page.locator("#fb-run").inputValue()).toBe(run.run_id);
    await page.locator("#fb-run").fill("00000000");
    await page.locator("#feedback-list", { hasText: "No feedback matches these filters." }).waitFor();

    // The run's row counts its feedback, and the count follows feedback as it arrives.
    await page.goto(`${mock.inspectorUrl}#/runs`);
    const feedbackCell = page.locator(`#runs-list tr[data-run="${run.run_id}"] td`).last();
    await feedbackCell.filter({ hasText: /^1$/ }).waitFor();
    const second = await fetch(run.feedback_urls.helpful, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 0 }) });
    expect(second.status).toBe(200);
    await feedbackCell.filter({ hasText: /^2$/ }).waitFor();
    expect(await feedbackCell.getByRole("link").getAttribute("href")).toBe(`#/feedback?run=${encodeURIComponent(run.run_id)}`);
  });

  it("traces: each a tree with timings, a run's inputs and outputs on click, errors marked, feedback on its run, live", async () => {
    const ls = new LangSmith({ apiUrl: `${mock.tracingUrl}/api/v1`, autoBatchTracing: true });
    await runTracedAgent(ls, "capital", "inspector");
    const [root] = mock.traces({ name: "agent" });

    await openInspector("#/traces");
    const trace = page.locator(`#traces-list article[data-trace="${root!.trace_id}"]`);
    await trace.waitFor();
    expect(await page.locator('.tabs [data-count="traces"]').textContent()).toBe("1");
    // The tree: the root at the top, its two children under it in the order they started.
    const names = (scope: string) => trace.locator(`${scope} > li > details > summary .tr-name`).allTextContents();
    expect(await names(":scope > ul")).toEqual(["agent"]);
    expect(await names(":scope > ul > li > ul")).toEqual(["lookup", "calculator"]);
    expect(await trace.locator(".trace-head").textContent()).toContain("3 runs");
    expect(await trace.locator(".trace-head .badge").textContent()).toBe("1 error");
    // The erroring run, and only it, is marked.
    expect(await trace.locator("li.errored .tr-name").allTextContents()).toEqual(["calculator"]);
    expect(await trace.locator("[data-error]").count()).toBe(1);

    // A run opens on click to its inputs and outputs as the client sent them.
    const lookupRun = trace.locator(`li[data-trace-run="${mock.traces({ name: "lookup" })[0]!.id}"]`);
    await lookupRun.locator("summary").first().click();
    expect(JSON.parse((await lookupRun.locator("[data-inputs]").textContent())!)).toEqual(mock.traces({ name: "lookup" })[0]!.inputs);
    expect(JSON.parse((await lookupRun.locator("[data-outputs]").textContent())!)).toEqual({ hits: ["capital-1", "capital-2"] });
    const calculatorRun = trace.locator("li.errored");
    await calculatorRun.locator("summary").click();
    expect(await calculatorRun.locator("[data-run-error]").textContent()).toContain("division by zero");

    // Feedback the client records on a run shows on that run, live.
    await ls.createFeedback(root!.id, "correct", { score: 1, comment: "right answer", sessionId: root!.session_id });
    const chip = trace.locator(`li[data-trace-run="${root!.id}"] > details > summary .fb-chip`);
    await chip.waitFor();
    expect(await chip.textContent()).toBe("correct 1");
    await shot("inspector-traces");

    // A trace posted while the page is open appears without a reload, still open, then ends.
    const id = "4b5c1f0e-8a0d-4f5e-9c1b-2d3e4f5a6b7c";
    const child = "5c6d2a1f-9b1e-4a6f-8d2c-3e4f5a6b7c8d";
    const name = '<img src=x onerror="document.title=1">';
    const batch = (body: unknown) => post(`${mock.tracingUrl}/api/v1/runs/batch`, body);
    expect((await batch({ post: [{ id, name, run_type: "chain", start_time: "2030-01-01T00:00:00.000000Z", inputs: { q: "<b>hi</b>" } }] })).status).toBe(202);
    const live = page.locator(`article[data-trace="${id}"]`);
    await live.waitFor();
    expect(await page.locator("#traces-list article").first().getAttribute("data-trace")).toBe(id); // newest first
    expect(await live.locator(".trace-head .badge").textContent()).toBe("pending");
    // Client strings are text, never markup.
    expect(await live.locator(".tr-name").first().textContent()).toBe(name);
    expect(await page.locator("#traces-list img, #traces-list b").count()).toBe(0);
    expect(
      (
        await batch({
          post: [{ id: child, trace_id: id, parent_run_id: id, name: "step", run_type: "tool", start_time: "2030-01-01T00:00:00.250000Z", end_time: "2030-01-01T00:00:00.750250Z", inputs: {}, outputs: { ok: true } }],
          patch: [{ id, trace_id: id, end_time: "2030-01-01T00:00:01.500000Z", outputs: { a: 1 } }],
        })
      ).status,
    ).toBe(202);
    await live.locator(".trace-head .badge", { hasText: "success" }).waitFor();
    expect(await live.locator(".trace-head .num").textContent()).toBe("1.50 s");
    const step = live.locator(`li[data-trace-run="${child}"] > details > summary`);
    await step.waitFor();
    expect(await step.locator(".ev-offset").textContent()).toBe("+250 ms");
    expect(await step.locator(".tr-took").textContent()).toBe("500 ms");
    expect(await page.title()).not.toBe("1");

    // Filters, then a reset of the traces empties the tab live.
    await page.locator("#tr-status").selectOption("error");
    expect(await page.locator("#traces-list article").count()).toBe(1);
    await page.locator("#tr-status").selectOption("");
    await page.locator("#tr-name").fill("step");
    expect(await page.locator("#traces-list article").getAttribute("data-trace")).toBe(id);
    await page.locator("#tr-name").fill("");
    mock.reset("traces");
    await page.locator("#traces-list", { hasText: "No traces yet" }).waitFor();

    // Parent ids are the client's: two runs naming each other still show, each once.
    const [a, b] = ["6d7e3b2a-0c2f-4b7a-9e3d-4f5a6b7c8d9e", "7e8f4c3b-1d3a-4c8b-8f4e-5a6b7c8d9e0f"];
    const loop = [
      { id: a, trace_id: a, parent_run_id: b, name: "ping", run_type: "chain", start_time: "2030-01-01T00:00:00.000000Z" },
      { id: b, trace_id: a, parent_run_id: a, name: "pong", run_type: "chain", start_time: "2030-01-01T00:00:00.100000Z" },
    ];
    expect((await batch({ post: loop })).status).toBe(202);
    const looped = page.locator(`article[data-trace="${a}"]`);
    await looped.locator(`li[data-trace-run="${b}"]`).waitFor();
    expect(await looped.locator(".tr-name").allTextContents()).toEqual(["ping", "pong"]);
    // A burst of traces (read in one request) all arrive.
    const bulk = Array.from({ length: 25 }, (_, i) => ({ name: `bulk-${i}`, run_type: "tool", start_time: "2030-01-01T00:00:01.000000Z" }));
    expect((await batch({ post: bulk })).status).toBe(202);
    await page.locator('.tabs [data-count="traces"]', { hasText: "26" }).waitFor();
    expect(await page.locator("#traces-list article").count()).toBe(26);

    // An agent-server run is traced under its own id; its page links to that trace alone.
    for await (const _ of client.runs.stream(await createThread(), "agent", { input: user("thanks!") }));
    const agentRun = (await json(await fetch(`${mock.url}/_mock/runs?scenario=quick-thanks`))).items[0];
    await page.goto(`${mock.inspectorUrl}#/runs/${agentRun.run_id}`);
    await page.getByRole("link", { name: "its trace in the tracing service" }).click();
    await page.locator(`#traces-list article[data-trace="${agentRun.run_id}"]`).waitFor();
    expect(await page.locator("#tr-trace").inputValue()).toBe(agentRun.run_id);
    expect(await page.locator("#traces-list article").count()).toBe(1);
  });

  it("the request journal shows the scenario that answered and why an unmatched run missed", async () => {
    const thread = await createThread();
    await client.runs.wait(thread, "agent", { input: user("thanks!") });
    await expect(client.runs.wait(thread, "agent", { input: user("hello?") })).rejects.toThrow();
    await openInspector("#/requests");
    const rows = page.locator("#requests-list tr[data-request]");
    await rows.nth(2).waitFor();
    const miss = rows.nth(0);
    expect(await miss.textContent()).toContain("No scenario matched");
    expect(await miss.locator(".near-miss li").allTextContents()).toEqual([
      'slow-weather: input.messages[0].content does not contain "weather"',
      'quick-thanks: input.messages[0].content does not contain "thanks"',
    ]);
    expect(await rows.nth(1).textContent()).toContain("/threads/:thread_id/runs/wait");
    expect(await rows.nth(1).textContent()).toContain("scenario quick-thanks → run");
    // Filters: only the run that missed.
    await page.locator("#rq-status").selectOption("miss");
    expect(await rows.count()).toBe(1);
    await page.locator("#rq-status").selectOption("");
    await shot("inspector-requests");
    // New requests arrive live.
    await client.threads.create();
    await rows.nth(3).waitFor();
    expect(await rows.nth(0).textContent()).toContain("POST/threads");
    // A request an injected fault answered says which rule fired.
    const rule = { id: "info-down", match: { method: "GET", path: "/api/v1/info" }, fault: { status: { status: 503, body: { detail: "down" } } } };
    expect((await post(`${mock.url}/_mock/faults`, rule)).status).toBe(201);
    expect((await fetch(`${mock.url}/api/v1/info`)).status).toBe(503);
    await rows.nth(4).waitFor();
    expect(await rows.nth(0).textContent()).toContain("fault injected: status (rule info-down)");
  });

  it("a scenario pasted with a mistake shows validate's message; a good one loads and can be removed", async () => {
    await openInspector("#/scenarios");
    await page.locator("#scenarios-list article").nth(1).waitFor();
    expect(await page.locator("#scenarios-list .scenario-head strong").allTextContents()).toEqual(["slow-weather", "quick-thanks"]);
    const bad = "name: greeting\nmatch:\n  input: { messages: [ { content: { $startsWith: hi } } ] }\nevents:\n  - event: values\n    data: { messages: [] }\n";
    await page.locator("#scenario-text").fill(bad);
    await page.getByRole("button", { name: "Load" }).click();
    const problems = page.locator("[data-problems]");
    await problems.waitFor();
    // What `agent-platform-mock validate` says about the same content in a file.
    const dir = mkdtempSync(join(tmpdir(), "inspector-validate-"));
    const file = join(dir, "greeting.yaml");
    writeFileSync(file, bad);
    const expected: LoadProblem[] = [];
    const docs = readDocuments([file], expected, true);
    expected.push(...validateScenarioDocuments(docs));
    rmSync(dir, { recursive: true });
    expect(expected.length).toBeGreaterThan(0);
    const lines = expected.map((p) => formatProblem({ ...p, file: "<POST /_mock/scenarios>.yaml" }));
    expect(await problems.textContent()).toBe(`${expected.length} problem${expected.length === 1 ? "" : "s"} found:\n${lines.join("\n")}`);
    await shot("inspector-scenarios");

    await page.locator("#scenario-text").fill(bad.replace("$startsWith", "$contains"));
    await page.locator("#scenario-text").press("Control+Enter");
    await page.locator("#scenario-result", { hasText: "Loaded 'greeting'." }).waitFor();
    await page.locator("#scenarios-list [data-scenario=greeting]").waitFor();
    expect((await fetch(`${mock.url}/_mock/scenarios`).then(json)).items.map((s: { name: string }) => s.name)).toEqual(["slow-weather", "quick-thanks", "greeting"]);

    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Remove scenario greeting" }).click();
    await page.locator("#scenarios-list [data-scenario=greeting]").waitFor({ state: "detached" });
    expect((await fetch(`${mock.url}/_mock/scenarios`).then(json)).count).toBe(2);
  });

  it("advancing the clock moves a deployment through its lifecycle states", async () => {
    const created = await fetch(`${mock.url}/v2/deployments`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "inspector-demo",
        source: "github",
        source_config: { integration_id: "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c", repo_url: "https://github.com/acme-corp/react-agent", deployment_type: "dev" },
        source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
        secrets: [],
      }),
    });
    expect(created.status).toBe(201);
    const deployment = await json(created);
    await openInspector("#/deployments");
    const card = page.locator(`[data-deployment="${deployment.id}"]`);
    const current = card.locator(".steps li[aria-current=step]");
    await current.waitFor();
    expect(await current.textContent()).toBe("CREATING");
    expect(await page.locator("#lifecycle-hint").textContent()).toBe("lifecycle: timed, 30s per step");
    const seen = ["CREATING"];
    for (const next of ["QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]) {
      await page.getByRole("button", { name: "Advance one lifecycle step" }).click();
      await card.locator(".steps li[aria-current=step]", { hasText: next }).waitFor();
      seen.push(next);
      if (next === "BUILDING") await shot("inspector-deployments");
    }
    expect(seen.at(-1)).toBe("DEPLOYED");
    expect(await card.locator(".deployment-head").textContent()).toContain("READY");
    const revision = await json(await fetch(`${mock.url}/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`));
    expect(revision.status).toBe("DEPLOYED");
  });

  it("controls move and set the clock, reset, and show the options; dark and narrow layouts render", async () => {
    await context.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "dark" });
    page = await context.newPage();
    page.setDefaultTimeout(8000);
    page.on("request", (r) => requested.push(r.url()));
    await openInspector("#/controls");
    await page.locator("#ctl-now", { hasText: "2026-01-15 09:00:00.000 UTC" }).waitFor();
    await page.locator("#advance-by").fill("1h30m");
    await page.locator("#advance-by").press("Enter");
    await page.locator("#ctl-now", { hasText: "2026-01-15 10:30:00.000 UTC" }).waitFor();
    expect(mock.clock.now().toISOString()).toBe("2026-01-15T10:30:00.000Z");
    await page.locator("#advance-by").fill("soon");
    await page.getByRole("button", { name: "Advance", exact: true }).click();
    await page.locator("#clock-result", { hasText: 'advance must be a duration such as "250ms"' }).waitFor();
    // A change made elsewhere (the test's own clock) reaches the page through the feed.
    mock.clock.set("2026-02-01T12:00:00Z");
    await page.locator("#clock", { hasText: "2026-02-01 12:00:00.000 UTC" }).waitFor();
    const options = await page.locator("#options").textContent();
    expect(options).toContain("seed42");
    expect(options).toContain("lifecycletimed (30s per step when timed)");
    const bg = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(bg).toBe("rgb(18, 20, 24)");
    await shot("inspector-controls-dark");
    await page.locator("#reset-scope").selectOption("all");
    await page.getByRole("button", { name: "Reset" }).click();
    await page.locator("#ctl-now", { hasText: "2026-01-15 09:00:00.000 UTC" }).waitFor();

    await page.setViewportSize({ width: 390, height: 800 });
    const thread = await createThread();
    for await (const _ of client.runs.stream(thread, "agent", { input: user("thanks!") }));
    const runId = (await json(await fetch(`${mock.url}/_mock/runs`))).items[0].run_id;
    await page.goto(`${mock.inspectorUrl}#/runs/${runId}`);
    await page.locator("#run-ending", { hasText: "Ended" }).waitFor();
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await shot("inspector-narrow");
  });
});
