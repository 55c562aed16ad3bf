import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, inspectorUrl, startMockServer, type MockServer } from "../../src/index.js";
import { EventBus } from "../../src/core/event-bus.js";
import { Collection } from "../../src/store/collection.js";

const SCENARIOS = [
  { name: "hello", match: { input: { messages: [{ content: { $contains: "hello" } }] } }, events: [{ event: "values", data: { messages: [] } }, { event: "values", delay_ms: 250, data: { messages: [{ type: "ai", content: "hi" }] } }] },
];
const DEPLOYMENT = {
  name: "feed-demo",
  source: "github",
  source_config: { integration_id: "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c", repo_url: "https://github.com/acme-corp/react-agent", deployment_type: "dev" },
  source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
  secrets: [],
};

type FeedEvent = { event: string; id: string; data: any };

/** A client of GET /_mock/events that keeps the raw text and hands out events as they arrive. */
class Feed {
  raw = "";
  res!: IncomingMessage;
  private waiters: { test: (e: FeedEvent) => boolean; resolve: (e: FeedEvent) => void }[] = [];
  readonly events: FeedEvent[] = [];

  static open(url: string): Promise<Feed> {
    const feed = new Feed();
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${url}/_mock/events`, (res) => {
        feed.res = res;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => feed.take(chunk));
        res.once("data", () => resolve(feed));
      });
      req.on("error", reject);
      req.end();
    });
  }

  private pending = "";

  private take(chunk: string): void {
    this.raw += chunk;
    const blocks = (this.pending + chunk).split("\n\n");
    this.pending = blocks.pop() ?? "";
    for (const block of blocks) {
      if (!block.startsWith("event: ")) continue;
      const [event, id, data] = block.split("\n").map((l) => l.slice(l.indexOf(": ") + 2));
      const e = { event: event!, id: id!, data: JSON.parse(data!) };
      this.events.push(e);
      for (const w of [...this.waiters]) {
        if (!w.test(e)) continue;
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  }

  /** The first event (already seen or still to come) of a type that passes `test`. */
  next(event: string, test: (data: any) => boolean = () => true): Promise<FeedEvent> {
    const match = (e: FeedEvent) => e.event === event && test(e.data);
    const seen = this.events.find(match);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.waiters.push({ test: match, resolve }));
  }

  close(): void {
    this.res.destroy();
  }
}

/** A response body as the test reads it: any JSON. */
const json = (res: Response): Promise<any> => res.json();
const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("GET /_mock/events", () => {
  let mock: MockServer;
  let feed: Feed;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 42, scenarios: SCENARIOS, lifecycle: "timed" });
  });
  afterAll(() => mock.close());
  afterEach(() => {
    feed?.close();
    mock.reset();
  });

  it("is an event stream that starts with a comment and a retry, then one block per change: event, id, JSON data", async () => {
    feed = await Feed.open(mock.url);
    expect(feed.res.statusCode).toBe(200);
    expect(feed.res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(feed.res.headers["cache-control"]).toBe("no-store");
    await post(`${mock.url}/threads`, {});
    const journaled = await feed.next("request.journaled");
    expect(feed.raw).toMatch(/^: agent-platform-mock change feed\n\nretry: 1000\n\nevent: request\.journaled\nid: \d+\ndata: \{.*\}\n\n$/);
    expect(journaled.data).toMatchObject({ method: "POST", path: "/threads", status: 200, received_at: "2026-01-15T09:00:00.000000+00:00" });
  });

  it("follows a run: created, running, each event with its offset on the mock's clock, ended; then its feedback", async () => {
    feed = await Feed.open(mock.url);
    const thread = await json(await post(`${mock.url}/threads`, {}));
    const stream = await post(`${mock.url}/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] }, feedback_keys: ["liked"] });
    await stream.text();
    const created = await feed.next("run.created");
    const ended = await feed.next("run.ended");
    expect(created.data).toMatchObject({ thread_id: thread.thread_id, status: "pending", scenario: "hello", request: { feedback_keys: ["liked"] } });
    expect(ended.data).toMatchObject({ run_id: created.data.run_id, status: "success", feedback_urls: { liked: expect.stringContaining("/api/v1/feedback/tokens/") } });
    expect((await feed.next("run.updated")).data.status).toBe("running");
    const events = feed.events.filter((e) => e.event === "run.event").map((e) => e.data);
    expect(events.map((e) => [e.event, e.offset_ms, e.at])).toEqual([
      ["metadata", 0, "2026-01-15T09:00:00.000000+00:00"],
      ["values", 0, "2026-01-15T09:00:00.000000+00:00"],
      ["values", 250, "2026-01-15T09:00:00.250000+00:00"],
      ["feedback", 250, "2026-01-15T09:00:00.250000+00:00"],
    ]);
    expect(events[2]).toEqual({ run_id: created.data.run_id, id: 2, event: "values", mode: "values", size: 43, at: "2026-01-15T09:00:00.250000+00:00", offset_ms: 250, data: { messages: [{ type: "ai", content: "hi" }] } });
    // The stream delay moved the seeded clock by itself.
    expect((await feed.next("clock.moved")).data).toEqual({ now: "2026-01-15T09:00:00.250000+00:00", cause: "sleep" });
    expect(feed.events.map((e) => Number(e.id))).toEqual(feed.events.map((e) => Number(e.id)).sort((a, b) => a - b));

    await post(ended.data.feedback_urls.liked, { score: 1 });
    expect((await feed.next("feedback.recorded")).data).toMatchObject({ key: "liked", score: 1, run_id: created.data.run_id, scenario: "hello" });
    await fetch(`${mock.url}/_mock/feedback`, { method: "DELETE" });
    await feed.next("feedback.cleared");
  });

  it("each feedback event names its run, so a follower counts a run's feedback as it arrives (the inspector's runs list)", async () => {
    feed = await Feed.open(mock.url);
    const thread = await json(await post(`${mock.url}/threads`, {}));
    await (await post(`${mock.url}/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] }, feedback_keys: ["liked", "helpful"] })).text();
    const ended = await feed.next("run.ended");
    const runId = ended.data.run_id;
    const countFor = () => feed.events.filter((e) => e.event === "feedback.recorded" && e.data.run_id === runId).length;
    expect(countFor()).toBe(0);
    await post(ended.data.feedback_urls.liked, { score: 1 });
    await feed.next("feedback.recorded", (d) => d.key === "liked");
    expect(countFor()).toBe(1);
    await post(ended.data.feedback_urls.helpful, { score: 0 });
    await feed.next("feedback.recorded", (d) => d.key === "helpful");
    expect(countFor()).toBe(2);
    expect((await json(await fetch(`${mock.url}/_mock/feedback?run_id=${runId}`))).count).toBe(2);
  });

  it("the feed and a waitFor both follow the same collections: neither takes the other's place", async () => {
    feed = await Feed.open(mock.url);
    const waiting = mock.waitFor.run({ scenario: "hello", status: "success" });
    const thread = await json(await post(`${mock.url}/threads`, {}));
    await (await post(`${mock.url}/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] } })).text();
    const [done] = await waiting;
    expect((await feed.next("run.ended")).data.run_id).toBe(done!.run_id);
    // A second feed follows alongside the first.
    const second = await Feed.open(mock.url);
    try {
      await post(`${mock.url}/_mock/clock`, { advance: "1s" });
      expect((await second.next("clock.moved", (d) => d.cause === "advance")).data).toEqual((await feed.next("clock.moved", (d) => d.cause === "advance")).data);
    } finally {
      second.close();
    }
  });

  it("tells of scenarios loaded and removed, the clock moved, a reset and deployments changing", async () => {
    feed = await Feed.open(mock.url);
    await fetch(`${mock.url}/_mock/scenarios`, { method: "POST", headers: { "Content-Type": "application/yaml" }, body: "name: extra\nevents: []\n" });
    expect((await feed.next("scenarios.loaded")).data).toEqual({ names: ["extra"] });
    await fetch(`${mock.url}/_mock/scenarios/extra`, { method: "DELETE" });
    expect((await feed.next("scenarios.removed")).data).toEqual({ names: ["extra"] });

    const created = await json(await post(`${mock.url}/v2/deployments`, DEPLOYMENT));
    expect((await feed.next("deployment.changed", (d) => d.deployment_id === created.id && d.status === "CREATING")).data.revision_id).toBe(created.latest_revision_id);
    await post(`${mock.url}/_mock/clock`, { advance: "30s" });
    expect((await feed.next("clock.moved", (d) => d.cause === "advance")).data).toEqual({ now: "2026-01-15T09:00:30.000000+00:00", cause: "advance" });
    await feed.next("deployment.changed", (d) => d.deployment_id === created.id && d.status === "QUEUED");

    await post(`${mock.url}/_mock/reset`, { scope: "scenarios" });
    await feed.next("scenarios.reset", (d) => d.names.join() === "hello");
    expect((await feed.next("reset")).data).toEqual({ scope: "scenarios" });
  });

  it("closing the mock ends open feeds", async () => {
    const other = await startMockServer({ seed: 1 });
    feed = await Feed.open(other.url);
    const ended = new Promise((resolve) => feed.res.on("end", resolve));
    await other.close();
    await ended;
  });
});

describe("the event bus", () => {
  it("builds no payload when nobody listens, and stops telling a listener that throws", () => {
    const bus = new EventBus();
    let built = 0;
    bus.emit("x", () => ++built);
    expect(built).toBe(0);
    const seen: unknown[] = [];
    const stop = bus.subscribe((e) => seen.push(e));
    bus.subscribe(() => {
      throw new Error("broken stream");
    });
    bus.emit("x", () => ++built);
    bus.emit("y", () => ++built);
    expect(built).toBe(2);
    expect(seen).toEqual([{ seq: 1, type: "x", data: 1 }, { seq: 2, type: "y", data: 2 }]);
    stop();
    expect(bus.listening).toBe(false);
  });
});

describe("a collection's subscribers", () => {
  it("are each told of every write until they unsubscribe; one leaving does not silence another", () => {
    const items = new Collection<{ n: number }>("items");
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = items.subscribe((id, record, previous) => a.push([id, record?.n, previous?.n]));
    const offB = items.subscribe((id, record) => b.push([id, record?.n]));
    items.set("x", { n: 1 });
    items.set("x", { n: 2 });
    offA();
    offA();
    items.delete("x");
    items.clear();
    offB();
    items.set("y", { n: 3 });
    expect(a).toEqual([["x", 1, undefined], ["x", 2, 1]]);
    expect(b).toEqual([["x", 1], ["x", 2], ["x", undefined], [undefined, undefined]]);
  });
});

describe("the inspector's views", () => {
  const app = createApp({ seed: 42, scenarios: SCENARIOS, lifecycle: "timed", apiKey: "secret-key" });
  const key = { "X-Api-Key": "secret-key" };
  afterEach(() => {
    // One app for the file: each test starts from the state after start.
    (app.locals.mock as { reset(): void }).reset();
  });

  it("GET /_mock/runs/{id}/events: the run's events with size and offset; 404 for an unknown run", async () => {
    const thread = (await request(app).post("/threads").set(key).send({}).expect(200)).body;
    await request(app).post(`/threads/${thread.thread_id}/runs/wait`).set(key).send({ assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] } }).expect(200);
    const run = (await request(app).get("/_mock/runs").expect(200)).body.items[0];
    const res = await request(app).get(`/_mock/runs/${run.run_id}/events`).expect(200);
    expect(res.body).toMatchObject({ run_id: run.run_id, count: 3, finished: true });
    expect(res.body.items.map((e: { event: string; offset_ms: number; size: number }) => [e.event, e.offset_ms, e.size])).toEqual([
      ["metadata", 0, 61],
      ["values", 0, 15],
      ["values", 250, 43],
    ]);
    const missing = await request(app).get("/_mock/runs/019bc0e2-0000-7000-8000-000000000000/events").expect(404);
    expect(missing.body).toEqual({ detail: "Run 019bc0e2-0000-7000-8000-000000000000 not found" });
  });

  it("the journal notes the scenario and run that answered a run request, and why one matched nothing", async () => {
    const thread = (await request(app).post("/threads").set(key).send({}).expect(200)).body;
    await request(app).post(`/threads/${thread.thread_id}/runs/wait`).set(key).send({ assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] } }).expect(200);
    await request(app).post(`/threads/${thread.thread_id}/runs/wait`).set(key).send({ assistant_id: "agent", input: { messages: [{ role: "user", content: "bye" }] } }).expect(422);
    const [threads, hit, miss] = (await request(app).get("/_mock/requests").expect(200)).body.items;
    const run = (await request(app).get("/_mock/runs").expect(200)).body.items[0];
    expect(threads).not.toHaveProperty("note");
    expect(hit.note).toEqual({ scenario: "hello", turn: 1, run_id: run.run_id });
    expect(miss.note).toEqual({ near_miss: ['hello: input.messages[0].content does not contain "hello"'] });
  });

  it("GET /_mock/deployments lists every deployment with its revisions, newest first, caught up with the clock", async () => {
    const created = (await request(app).post("/v2/deployments").set(key).send(DEPLOYMENT).expect(201)).body;
    (app.locals.mock as { clock: { advance(d: string): void } }).clock.advance("60s");
    const res = await request(app).get("/_mock/deployments").expect(200);
    expect(res.body).toMatchObject({ lifecycle: "timed", lifecycle_step_ms: 30000, count: res.body.items.length });
    const mine = res.body.items.find((d: { id: string }) => d.id === created.id);
    expect(mine).toEqual({
      id: created.id,
      name: "feed-demo",
      tenant_id: created.tenant_id,
      source: "github",
      status: "READY",
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:01:00.000000+00:00",
      latest_revision_id: created.latest_revision_id,
      active_revision_id: null,
      in_flight_revision_id: created.latest_revision_id,
      revisions: [{ id: created.latest_revision_id, status: "AWAITING_BUILD", created_at: "2026-01-15T09:00:00.000000+00:00", updated_at: "2026-01-15T09:01:00.000000+00:00" }],
    });
    expect(res.body.items[0].id).toBe(created.id);
  });

  it("GET /_mock/options shows the options in force without secrets; GET /_mock/routes the services' routes", async () => {
    const options = (await request(app).get("/_mock/options").expect(200)).body;
    expect(options).toMatchObject({ seed: 42, clock: { mode: "fixed", start: null, auto_advance: true }, lifecycle: "timed", lifecycle_step_ms: 30000, heartbeat_ms: 5000, api_key_required: true, admin_token_required: false, fixtures: null, scenarios: ["<object>"] });
    expect(JSON.stringify(options)).not.toContain("secret-key");
    const routes = (await request(app).get("/_mock/routes").expect(200)).body.items;
    expect(routes).toContainEqual({ method: "POST", path: "/threads/:thread_id/runs/stream" });
    expect(routes.some((r: { path: string }) => r.path.startsWith("/_mock"))).toBe(false);
  });

  it("GET /_mock/ui serves the page and its files from the mock alone; GET / links to it for browsers only", async () => {
    const page = await request(app).get("/_mock/ui").expect(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.text).toContain('<script src="/_mock/ui/inspector.js" defer></script>');
    expect(page.text).not.toMatch(/(src|href)="https?:/);
    const script = await request(app).get("/_mock/ui/inspector.js").expect(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.text).not.toMatch(/https?:\/\//);
    await request(app).get("/_mock/ui/secrets.txt").expect(404);
    const html = await request(app).get("/").set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8").expect(200);
    expect(html.text).toContain('<a href="/_mock/ui">inspector</a>');
    expect((await request(app).get("/").expect(404)).body).toEqual({ detail: "Not Found" });
    expect((await request(app).get("/_mock/requests").expect(200)).body.items.filter((e: { path: string }) => e.path === "/")).toHaveLength(1);
    expect(inspectorUrl("http://127.0.0.1:8123/")).toBe("http://127.0.0.1:8123/_mock/ui");
  });

  it("the admin token guards the page and the feed like every /_mock route", async () => {
    const guarded = createApp({ seed: 1, adminToken: "t0k" });
    await request(guarded).get("/_mock/ui").expect(401);
    await request(guarded).get("/_mock/events").expect(401);
    await request(guarded).get("/_mock/ui").set("Authorization", "Bearer t0k").expect(200);
  });
});

describe("GET /_mock/events opened while a run plays", () => {
  let mock: MockServer;
  beforeAll(async () => {
    // The run waits at its delay until the test moves the clock.
    mock = await startMockServer({ seed: 42, scenarios: SCENARIOS, clock: { autoAdvance: false } });
  });
  afterAll(() => mock.close());

  it("gets the run's events from then on (the ones before it are not sent again), then its end", async () => {
    const thread = await json(await post(`${mock.url}/threads`, {}));
    const stream = await post(`${mock.url}/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: { messages: [{ role: "user", content: "hello" }] } });
    const reader = stream.body!.getReader();
    let seen = "";
    while (!seen.includes("event: values")) {
      // A stream that ended without it fails here rather than spinning on empty reads.
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before "event: values": ${seen}`);
      seen += new TextDecoder().decode(chunk.value);
    }
    const feed = await Feed.open(mock.url);
    try {
      mock.clock.advance(250);
      const ended = await feed.next("run.ended");
      const events = feed.events.filter((e) => e.event === "run.event").map((e) => e.data);
      expect(events.map((e) => [e.run_id, e.id, e.event, e.offset_ms])).toEqual([[ended.data.run_id, 2, "values", 250]]);
      // Ended after its last event, as the feed tells it.
      expect(feed.events.findIndex((e) => e.event === "run.ended")).toBeGreaterThan(feed.events.findIndex((e) => e.event === "run.event"));
    } finally {
      feed.close();
      await reader.cancel();
    }
  });
});
