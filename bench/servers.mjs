// One server under test, in its own process (forked by bench/run.mjs with --expose-gc):
//   node servers.mjs mock '<ServerOptions JSON>'   the mock, from the compiled package in ../dist
//   node servers.mjs express                        bare express 5 answering recorded responses
//   node servers.mjs http                           bare node:http answering recorded responses
// It sends {port} once listening. Messages from the parent:
//   {cmd: "answers", answers: [{method, path, status, contentType, body (base64), frames?}]}
//       the bytes the bare servers answer with (recorded from the mock), by exact method and path;
//       `frames` (SSE) are written one write() each, as a stream would.
//   {cmd: "usage", settleMs?} → {cpuUs, cpuAfterGcUs, rss, peak}: CPU time used so far (read before the full
//       GC this message runs, and again after it), RSS after that GC (`settleMs` later, when given), highest
//       RSS since the last usage. A window
//       measured between two usages is `after.cpuUs - before.cpuAfterGcUs`: the bench's own forced GC
//       is in neither (a bigger heap would otherwise pay for the measurement itself).
//   {cmd: "profile-start"}, {cmd: "profile-stop"} → {profile}: a CPU profile of what ran in between.
//   {cmd: "close"}
const [kind, optionsJson] = process.argv.slice(2);
let answers = new Map();
const key = (method, path) => `${method} ${path}`;

async function start() {
  if (kind === "mock") {
    const { startMockServer } = await import("../dist/index.js");
    const mock = await startMockServer({ port: 0, ...JSON.parse(optionsJson ?? "{}") });
    return Number(new URL(mock.url).port);
  }
  if (kind === "express") {
    const { default: express } = await import("express");
    const app = express();
    // As the mock does: JSON bodies parsed before the handler, so a POST costs what parsing costs.
    app.use(express.json());
    app.use((req, res) => {
      const answer = answers.get(key(req.method, req.originalUrl));
      if (!answer) return void res.status(404).end();
      if (answer.frames) {
        res.status(answer.status).set({ "Content-Type": answer.contentType, "Cache-Control": "no-store" });
        for (const frame of answer.frames) res.write(frame);
        return void res.end();
      }
      res.status(answer.status).type(answer.contentType).send(answer.body);
    });
    return listen((handler) => app.listen(0, "127.0.0.1", handler));
  }
  const http = await import("node:http");
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (chunks.length) JSON.parse(Buffer.concat(chunks).toString());
      const answer = answers.get(key(req.method, req.url));
      if (!answer) return void res.writeHead(404).end();
      if (answer.frames) {
        res.writeHead(answer.status, { "Content-Type": answer.contentType, "Cache-Control": "no-store" });
        for (const frame of answer.frames) res.write(frame);
        return void res.end();
      }
      res.writeHead(answer.status, { "Content-Type": answer.contentType, "Content-Length": answer.body.length }).end(answer.body);
    });
  });
  return listen((handler) => server.listen(0, "127.0.0.1", handler));
}

function listen(open) {
  return new Promise((resolve) => {
    const server = open(() => resolve(server.address().port));
  });
}

let profiler;
// The highest RSS since the last "usage" message (the per-stream memory of a burst).
let peakRss = 0;
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 10).unref();
process.on("disconnect", () => process.exit(0));
process.on("message", (msg) => {
  if (msg.cmd === "answers") {
    answers = new Map(msg.answers.map((a) => [key(a.method, a.path), { ...a, body: Buffer.from(a.body, "base64") }]));
    process.send({ cmd: "answers" });
  } else if (msg.cmd === "usage") {
    const { user, system } = process.cpuUsage();
    const peak = Math.max(peakRss, process.memoryUsage().rss);
    globalThis.gc?.();
    peakRss = 0;
    const after = process.cpuUsage();
    const send = () => process.send({ cmd: "usage", cpuUs: user + system, cpuAfterGcUs: after.user + after.system, rss: process.memoryUsage().rss, peak });
    // V8 hands freed heap pages back to the system from a background thread, shortly after the GC.
    if (msg.settleMs) setTimeout(send, msg.settleMs);
    else send();
  } else if (msg.cmd === "profile-start") {
    // Profiling only the measured stretch (start-up excluded), through the inspector of this process.
    import("node:inspector").then(({ Session }) => {
      profiler = new Session();
      profiler.connect();
      profiler.post("Profiler.enable", () => profiler.post("Profiler.start", () => process.send({ cmd: "profile-start" })));
    });
  } else if (msg.cmd === "profile-stop") {
    profiler.post("Profiler.stop", (err, result) => process.send({ cmd: "profile-stop", profile: result.profile }));
  } else if (msg.cmd === "close") process.exit(0);
});

start().then((port) => process.send({ cmd: "listening", port }), (err) => {
  console.error(err);
  process.exit(1);
});
