// `node bench/memory.mjs [requests]` — where a server's memory goes (no target: printed only): the mock
// (as bench/run.mjs starts it) and bare express, each in its own process started with --expose-gc, just
// started, at rest and after `requests` (default 10,000) GETs of one deployment.
// For each: RSS after a full GC, the V8 heap as committed per space (new space is two semi-spaces,
// whose size V8 sets from how much survived young collections, start-up included), the heap in use,
// RSS outside the V8 heap, and the heap just before that GC (what the old space grew to under load).
//   node bench/memory.mjs child <kind> [optionsJson]   (internal: one server under test)
import { fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const MB = 1024 * 1024;

if (process.argv[2] === "child") await child(process.argv[3], process.argv[4]);
else await main(Number(process.argv[2] ?? 10_000));

async function child(kind, optionsJson) {
  let port;
  if (kind === "mock") {
    const { startMockServer } = await import("../dist/index.js");
    port = Number(new URL((await startMockServer({ port: 0, ...JSON.parse(optionsJson) })).url).port);
  } else {
    const { default: express } = await import("express");
    const app = express();
    app.use(express.json());
    app.use((_req, res) => res.type("application/json").send('{"ok":true}'));
    port = await new Promise((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve(server.address().port));
    });
  }
  const heap = () => {
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    const { heapUsed, heapTotal, rss } = process.memoryUsage();
    return { rss, heapUsed, heapTotal, newSpace: spaces.new_space, oldSpace: spaces.old_space, codeSpace: spaces.code_space, large: spaces.large_object_space };
  };
  process.on("message", (settleMs) => {
    const before = heap();
    globalThis.gc();
    if (settleMs) setTimeout(() => process.send({ before, after: heap() }), settleMs);
    else process.send({ before, after: heap() });
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ port });
}

async function main(requests) {
  const options = {
    seed: 42,
    fixtures: [join(root, "fixtures"), { generate: { deployments: { count: 1000 } } }],
    scenarios: [join(root, "scenarios"), join(here, "scenarios")],
    lifecycle: "immediate",
  };
  const servers = { mock: start("mock", options), express: start("express") };
  const loader = fork(join(here, "load.mjs"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const load = (job) => new Promise((resolve, reject) => {
    loader.once("message", (msg) => (msg.ok ? resolve(msg.result) : reject(new Error(msg.error))));
    loader.send(job);
  });
  const mockPort = await servers.mock.port;
  const list = await (await fetch(`http://127.0.0.1:${mockPort}/v2/deployments?limit=20`)).json();
  const path = `/v2/deployments/${list.resources[7].id}`;
  const rows = [];
  for (const [kind, server] of Object.entries(servers)) rows.push([kind, "just started", await server.usage()]);
  // At rest for 6 s (V8 gives back the young generation it grew for start-up once allocation has been
  // low for 5 s), then the GC, and 1 s for V8 to hand pages back.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  for (const [kind, server] of Object.entries(servers)) rows.push([kind, "at rest", await server.usage(1000)]);
  for (const [kind, server] of Object.entries(servers)) {
    await load({ kind: "count", port: await server.port, method: "GET", path, connections: 16, total: requests });
    rows.push([kind, `after ${requests.toLocaleString("en-US")} GETs`, await server.usage()]);
  }
  const f = (b) => (b / MB).toFixed(1).padStart(6);
  console.log("MB after a full GC         |    RSS | new sp | old sp |  code  | large  | heap used | outside heap | heap before GC");
  for (const [kind, when, { before, after }] of rows) {
    console.log(`${`${kind}, ${when}`.padEnd(27)}| ${f(after.rss)} | ${f(after.newSpace)} | ${f(after.oldSpace)} | ${f(after.codeSpace)} | ${f(after.large)} | ${f(after.heapUsed)}    | ${f(after.rss - after.heapTotal)}       | ${f(before.heapTotal)} (old ${f(before.oldSpace).trim()})`);
  }
  loader.kill();
  for (const server of Object.values(servers)) server.proc.kill();
}

function start(kind, options) {
  const proc = fork(fileURLToPath(import.meta.url), ["child", kind, ...(options ? [JSON.stringify(options)] : [])], { execArgv: ["--expose-gc"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const waiters = [];
  proc.on("message", (msg) => waiters.shift()?.(msg));
  const next = () => new Promise((resolve) => waiters.push(resolve));
  const port = next().then((msg) => msg.port);
  return {
    proc,
    port,
    usage: async (settleMs = 0) => {
      const answer = next();
      proc.send(settleMs);
      return answer;
    },
  };
}
