import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { issueFeedbackToken } from "../../src/tracing/feedback-tokens.js";
import { Random } from "../../src/core/random.js";
import { contextOf } from "../../src/mock-control.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 3 });
});
afterAll(() => mock.close());

it("200 concurrent submissions, mixing POST and GET, are all recorded once each, in arrival order; invalid ones in the burst record nothing", async () => {
  const ctx = contextOf(mock.control);
  const tokens = [0, 1, 2, 3].map((i) =>
    issueFeedbackToken(ctx, ctx.tracingUrl(), { run_id: `0198c0de-4444-7000-8000-00000000000${i}`, feedback_key: i % 2 ? "user_disliked" : "user_liked" }),
  );
  const before = ctx.random.checkpoint();
  const submissions = Array.from({ length: 200 }, (_, n) => {
    const token = tokens[n % tokens.length]!;
    return n % 2 === 0
      ? fetch(token.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: n, comment: `post ${n}` }) })
      : fetch(`${token.url}?score=${n}&comment=get%20${n}`);
  });
  // Invalid submissions in the same burst record nothing and say why.
  const invalid = Array.from({ length: 20 }, (_, n) => fetch(tokens[n % tokens.length]!.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: "bad" }) }));
  const [responses, refused] = await Promise.all([Promise.all(submissions), Promise.all(invalid)]);
  const bodies = (await Promise.all(responses.map((r) => r.json()))) as { id: string; score: number }[];
  expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
  for (const r of refused) {
    expect(r.status).toBe(422);
    expect(((await r.json()) as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "score"]);
  }

  const captured = mock.feedback();
  expect(captured).toHaveLength(200);
  expect(new Set(captured.map((f) => f.id)).size).toBe(200);
  // Every submission is there, exactly once, with what it sent and by the method it used.
  expect(captured.map((f) => f.score).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 200 }, (_, n) => n));
  for (const f of captured) expect([f.method, f.comment]).toEqual(Number(f.score) % 2 === 0 ? ["POST", `post ${f.score}`] : ["GET", `get ${f.score}`]);
  // Each response is the record that was stored for it.
  expect(new Set(bodies.map((b) => b.id))).toEqual(new Set(captured.map((f) => f.id)));
  // Arrival order: each record's id is drawn from the seeded generator when its request is handled,
  // so the list must follow the generator's sequence.
  const replay = new Random(3);
  replay.restore(before);
  expect(captured.map((f) => f.id)).toEqual(captured.map(() => replay.uuid4()));
  // The LangSmith view agrees.
  const listed = await fetch(`${mock.tracingUrl}/api/v1/feedback?run=${tokens[0]!.run_id}&limit=100`).then((r) => r.json());
  expect(listed).toHaveLength(50);
});
