import fc from "fast-check";
import request from "supertest";
import { get, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { until } from "../support/until.js";

/**
 * A bounded fuzz of the change feed (issue 28): random sequences of service and admin requests —
 * writes, refused cross-site writes, runs, clock moves, resets, odd text — while a client follows
 * `GET /_mock/events`. The feed stays well framed (every block an event with an increasing id and
 * JSON data), carries every accepted change and nothing refused, and no request answers a 5xx.
 */
const RUN_ID = "0198c0de-0000-7000-8000-000000000001";

type Op =
  | { kind: "feedback"; comment: string; score: number }
  | { kind: "plain"; comment: string }
  | { kind: "foreign"; comment: string }
  | { kind: "thread"; metadata: Record<string, unknown> }
  | { kind: "run" }
  | { kind: "advance"; ms: number }
  | { kind: "reset"; scope: string };

const text = fc.string({ unit: "binary", maxLength: 40 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("feedback" as const), comment: text, score: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.record({ kind: fc.constant("plain" as const), comment: text }),
  fc.record({ kind: fc.constant("foreign" as const), comment: text }),
  fc.record({ kind: fc.constant("thread" as const), metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.constant(null)), { maxKeys: 3 }) }),
  fc.constant({ kind: "run" as const }),
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 10_000_000 }) }),
  fc.record({ kind: fc.constantFrom("reset" as const), scope: fc.constantFrom("journal", "feedback", "store", "all") }),
);

interface FeedEvent {
  event: string;
  id: number;
  data: unknown;
}

/** The feed's framing: `event:`, `id:`, `data:` lines (LF), blocks apart by a blank line; comments and `retry:` first. */
function feedEvents(raw: string): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (const block of raw.split("\n\n").slice(0, -1)) {
    if (block.startsWith(":") || block.startsWith("retry:")) continue;
    const match = /^event: ([^\n]+)\nid: (\d+)\ndata: ([^\n]*)$/.exec(block);
    if (!match) throw new Error(`not a feed block: ${JSON.stringify(block.slice(0, 200))}`);
    events.push({ event: match[1] as string, id: Number(match[2]), data: JSON.parse(match[3] as string) });
  }
  return events;
}

describe("fuzz: the change feed", () => {
  let mock: MockServer;
  let feed: IncomingMessage;
  let raw = "";
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 5, fixtures: false, scenarios: [{ name: "s", events: [{ event: "values", data: { n: 1 } }, { event: "updates", delay_ms: 500, data: { a: { n: 2 } } }] }] });
    feed = await new Promise((resolve, reject) => get(`${mock.url}/_mock/events`, resolve).on("error", reject));
    feed.setEncoding("utf8");
    feed.on("data", (chunk: string) => (raw += chunk));
  });
  afterAll(async () => {
    feed.destroy();
    await mock.close();
  });

  it("random requests: well-framed events, every accepted change and no refused one", async () => {
    let marker = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const accepted: string[] = [];
        for (const o of ops) {
          let status: number;
          switch (o.kind) {
            case "feedback": {
              const res = await request(mock.url).post("/api/v1/feedback").send({ run_id: RUN_ID, key: "fuzz", score: o.score, comment: o.comment });
              status = res.status;
              if (status === 200) accepted.push(res.body.id);
              break;
            }
            case "plain":
              status = (await request(mock.url).post("/api/v1/feedback").set("Content-Type", "text/plain").send(JSON.stringify({ run_id: RUN_ID, key: "plain", comment: o.comment }))).status;
              expect(status).toBe(422);
              break;
            case "foreign":
              status = (await request(mock.url).post("/api/v1/feedback").set("Origin", "https://evil.example").send({ run_id: RUN_ID, key: "foreign", comment: o.comment })).status;
              expect(status).toBe(403);
              break;
            case "thread":
              status = (await request(mock.url).post("/threads").send({ metadata: o.metadata })).status;
              break;
            case "run":
              status = (await request(mock.url).post("/runs/wait").send({ assistant_id: "agent", input: {} })).status;
              break;
            case "advance":
              status = (await request(mock.url).post("/_mock/clock").send({ advance: o.ms })).status;
              break;
            case "reset":
              status = (await request(mock.url).post("/_mock/reset").send({ scope: o.scope })).status;
              break;
          }
          expect(status, JSON.stringify(o)).toBeLessThan(500);
        }
        // A last change everyone can wait for: once it is on the feed, so is everything before it.
        const last = `marker-${++marker}`;
        const end = (await request(mock.url).post("/api/v1/feedback").send({ run_id: RUN_ID, key: last }).expect(200)).body.id as string;
        await until(() => raw.includes(end));
        const events = feedEvents(raw.slice(0, raw.lastIndexOf("\n\n") + 2));
        for (let i = 1; i < events.length; i++) expect((events[i] as FeedEvent).id).toBeGreaterThan((events[i - 1] as FeedEvent).id);
        const recorded = new Set(events.filter((e) => e.event === "feedback.recorded").map((e) => (e.data as { id: string }).id));
        for (const id of accepted) expect(recorded.has(id)).toBe(true);
        const keys = events.filter((e) => e.event === "feedback.recorded").map((e) => (e.data as { key: string }).key);
        expect(keys).not.toContain("plain");
        expect(keys).not.toContain("foreign");
      }),
      { numRuns: 12, seed: 28 },
    );
  });
});
