// Load, abuse and soak (issue 11): concurrent feedback through one token URL, hundreds of streams
// with aborts, resets and clock moves mid-stream, then a short soak of mixed requests. Reports lost
// and duplicated feedback records, 5xx answers, and RSS before and after. Loopback only; every part
// is bounded in count and time (LOAD_SCALE=0.2 makes it smaller, e.g. on a busy machine).
import { startMockServer } from "../dist/index.js";

const SCALE = Number(process.env.LOAD_SCALE ?? 1);
const FEEDBACK = Math.round(2000 * SCALE);
const STREAMS = Math.round(300 * SCALE);
const SOAK_MS = Math.round(10_000 * SCALE);
const CONCURRENCY = 50;
const REQUEST_LIMIT_MS = 30_000;

const rssMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
};
const serverErrors = [];
const scenario = {
  name: "load",
  events: [
    { event: "values", data: { step: 1 }, delay_ms: 1000 },
    { event: "values", data: { step: 2 }, delay_ms: 1000 },
    { event: "values", data: { step: 3 }, delay_ms: 1000 },
  ],
};
// No delays: finishes without the clock moving (the feedback part and the soak use it).
const quick = { name: "quick", priority: 10, match: { input: { quick: true } }, events: [{ event: "values", data: { done: true } }] };
const mock = await startMockServer({ seed: 7, fixtures: false, scenarios: [scenario, quick], clock: { autoAdvance: false }, heartbeatMs: 200 });
const url = (path) => `${mock.url}${path}`;

async function call(path, init = {}) {
  const res = await fetch(url(path), { ...init, signal: init.signal ?? AbortSignal.timeout(REQUEST_LIMIT_MS), headers: { "Content-Type": "application/json", ...init.headers } });
  if (res.status >= 500) serverErrors.push(`${init.method ?? "GET"} ${path}: ${res.status}`);
  return res;
}

/** Runs `n` tasks, at most `limit` at a time. */
async function pool(n, limit, task) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, n) }, async () => {
    while (next < n) await task(next++);
  }));
}

const rssStart = rssMb();
console.log(`RSS at start                                     ${rssStart.toFixed(1)} MB`);

// 1. Concurrent feedback through one token URL: every use records exactly one record.
{
  const run = await call("/runs/wait", { method: "POST", body: JSON.stringify({ assistant_id: "agent", input: { quick: true }, feedback_keys: ["load"] }) });
  await run.arrayBuffer();
  const [record] = mock.control.runs();
  const tokenUrl = record?.feedback_urls?.load;
  if (!tokenUrl) throw new Error("the run handed out no feedback URL");
  const t = performance.now();
  await pool(FEEDBACK, CONCURRENCY, async (i) => {
    const res = await call(new URL(tokenUrl).pathname, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1, metadata: { n: i } }) });
    await res.arrayBuffer();
  });
  const ms = performance.now() - t;
  const seen = new Map();
  for (const item of mock.feedback({ key: "load" })) {
    const n = item.feedback_source?.metadata?.n ?? item.metadata?.n ?? item.extra?.metadata?.n;
    seen.set(n, (seen.get(n) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  for (let i = 0; i < FEEDBACK; i++) {
    const count = seen.get(i) ?? 0;
    if (count === 0) lost++;
    if (count > 1) duplicated += count - 1;
  }
  console.log(`feedback: ${FEEDBACK} concurrent submissions     ${ms.toFixed(0)} ms, lost ${lost}, duplicated ${duplicated}`);
}

// 2. Streams: hundreds open at once; a third aborted by the client, the clock moved and the mock
// reset while they run. Every stream must end (no hang) and the server must answer afterwards.
const rssBeforeStreams = rssMb();
{
  const t = performance.now();
  const outcomes = { completed: 0, aborted: 0, cut: 0, failed: 0 };
  const streams = Array.from({ length: STREAMS }, async (_, i) => {
    const abort = new AbortController();
    const limit = AbortSignal.timeout(REQUEST_LIMIT_MS);
    try {
      const res = await call("/runs/stream", { method: "POST", body: JSON.stringify({ assistant_id: "agent", stream_mode: ["values"] }), signal: AbortSignal.any([abort.signal, limit]) });
      const reader = res.body.getReader();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
        if (i % 3 === 0 && text.includes("event: metadata")) abort.abort();
      }
      if (/event: values[^]*step":3/.test(text)) outcomes.completed++;
      else outcomes.cut++;
    } catch (err) {
      if (abort.signal.aborted) outcomes.aborted++;
      else {
        outcomes.failed++;
        if (limit.aborted) serverErrors.push(`stream ${i} did not end within ${REQUEST_LIMIT_MS} ms`);
      }
    }
  });
  // Move the clock in steps while the streams run; reset the whole mock once in the middle.
  for (let step = 0; step < 8; step++) {
    await new Promise((r) => setTimeout(r, 50));
    if (step === 4) await (await call("/_mock/reset", { method: "POST", body: "{}" })).arrayBuffer();
    mock.clock.advance(1000);
  }
  const mover = setInterval(() => mock.clock.advance(1000), 20);
  await Promise.all(streams);
  clearInterval(mover);
  const ms = performance.now() - t;
  const health = await call("/_mock/health");
  console.log(`streams: ${STREAMS} with aborts, reset, clock moves  ${ms.toFixed(0)} ms, completed ${outcomes.completed}, aborted ${outcomes.aborted}, ended early by the reset ${outcomes.cut}, failed ${outcomes.failed}; health ${health.status}`);
}
await new Promise((r) => setTimeout(r, 200));
const rssAfterStreams = rssMb();
console.log(`RSS before streams ${rssBeforeStreams.toFixed(1)} MB, after ${rssAfterStreams.toFixed(1)} MB (${(((rssAfterStreams - rssBeforeStreams) / rssBeforeStreams) * 100).toFixed(1)} %)`);

// 3. Soak: mixed requests for a fixed time; the journal and feedback listings keep answering.
{
  mock.reset();
  const until = performance.now() + SOAK_MS;
  let requests = 0;
  const mover = setInterval(() => mock.clock.advance(5000), 10);
  await pool(Number.MAX_SAFE_INTEGER, 20, async (i) => {
    if (performance.now() > until) throw Object.assign(new Error("done"), { done: true });
    const which = i % 5;
    const res =
      which === 0 ? await call("/threads", { method: "POST", body: "{}" })
      : which === 1 ? await call("/runs/wait", { method: "POST", body: JSON.stringify({ assistant_id: "agent", input: { quick: true } }) })
      : which === 2 ? await call("/_mock/requests?limit=50")
      : which === 3 ? await call("/_mock/feedback")
      : await call("/threads/search", { method: "POST", body: JSON.stringify({ limit: 5 }) });
    await res.arrayBuffer();
    requests++;
  }).catch((err) => {
    if (!err.done) throw err;
  });
  clearInterval(mover);
  console.log(`soak: ${SOAK_MS} ms of mixed requests             ${requests} requests (${((requests / SOAK_MS) * 1000).toFixed(0)}/s)`);
}

await mock.close();
const rssEnd = rssMb();
console.log(`RSS at end                                       ${rssEnd.toFixed(1)} MB (start ${rssStart.toFixed(1)} MB)`);
console.log(`5xx answers and hung streams: ${serverErrors.length}${serverErrors.length ? `\n  ${serverErrors.slice(0, 10).join("\n  ")}` : ""}`);
process.exit(serverErrors.length ? 1 : 0);
