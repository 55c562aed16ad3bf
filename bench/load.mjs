// The load generator, run as its own process (bench/run.mjs forks it) so it never shares a thread
// with the server it measures. A raw keep-alive HTTP/1.1 client on node:net: requests are written
// from pre-built bytes and responses are only framed (Content-Length or chunked), never parsed, so
// the generator stays cheaper than any server under test — an http.Agent client would be the
// bottleneck against bare node:http and squeeze every ratio towards 1.
//
// Messages (IPC, one at a time): {job} where job is
//   {kind: "load", port, method, path, headers, body, connections, durationMs, warmupMs}
//        → {requests, rps, statuses, p50, p99} — closed loop: each connection sends its next request
//          when the previous answer is complete. `body` may contain {{n}}, a per-request counter.
//   {kind: "count", port, method, path, headers, body, connections, total} → same, exactly `total` requests.
//   {kind: "burst", port, method, path, headers, body, connections} → one request per connection,
//          all at once: {wallMs, completed, events, statuses} (`events` counts "event:" lines).
import net from "node:net";

let counter = 0;

function requestBytes(job) {
  const head = (length) => {
    let text = `${job.method} ${job.path} HTTP/1.1\r\nHost: 127.0.0.1:${job.port}\r\nConnection: keep-alive\r\n`;
    for (const [k, v] of Object.entries(job.headers ?? {})) text += `${k}: ${v}\r\n`;
    if (length !== undefined) text += `Content-Type: application/json\r\nContent-Length: ${length}\r\n`;
    return `${text}\r\n`;
  };
  if (job.body === undefined) {
    const fixed = Buffer.from(head());
    return () => fixed;
  }
  if (!job.body.includes("{{n}}")) {
    const body = Buffer.from(job.body);
    const fixed = Buffer.concat([Buffer.from(head(body.length)), body]);
    return () => fixed;
  }
  const parts = job.body.split("{{n}}");
  return () => {
    const n = `${process.pid}-${++counter}`;
    const body = Buffer.from(parts.join(n));
    return Buffer.concat([Buffer.from(head(body.length)), body]);
  };
}

/** One keep-alive connection; calls onResponse(status, ms, bodyText?) per complete answer. */
function connection(job, next, onResponse, wantBody) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(job.port, "127.0.0.1");
    socket.setNoDelay(true);
    let buf = null;
    let sentAt = 0;
    const send = () => {
      const bytes = next();
      if (!bytes) return void socket.end(resolve);
      sentAt = performance.now();
      socket.write(bytes);
    };
    socket.on("connect", send);
    socket.on("error", reject);
    socket.on("close", () => resolve());
    socket.on("data", (chunk) => {
      buf = buf ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        const headEnd = buf.indexOf("\r\n\r\n");
        if (headEnd < 0) return;
        const head = buf.latin1Slice(0, headEnd);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        let total;
        if (length) total = headEnd + 4 + Number(length[1]);
        else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
          const end = buf.indexOf("\r\n0\r\n\r\n", headEnd + 2);
          if (end < 0) return;
          total = end + 7;
        } else total = headEnd + 4;
        if (buf.length < total) return;
        const body = wantBody ? buf.toString("utf8", headEnd + 4, total) : undefined;
        buf = buf.length === total ? null : buf.subarray(total);
        onResponse(Number(head.slice(9, 12)), performance.now() - sentAt, body);
        send();
        if (!buf) return;
      }
    });
  });
}

function summary(latencies, statuses, seconds) {
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, rps: latencies.length / seconds, statuses, p50: at(0.5), p99: at(0.99) };
}

async function load(job) {
  const build = requestBytes(job);
  const latencies = [];
  const statuses = {};
  let measuring = false;
  let stopped = false;
  const next = () => (stopped ? null : build());
  const onResponse = (status, ms) => {
    if (!measuring) return;
    latencies.push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  const conns = Array.from({ length: job.connections }, () => connection(job, next, onResponse));
  await new Promise((r) => setTimeout(r, job.warmupMs ?? 0));
  measuring = true;
  const t = performance.now();
  await new Promise((r) => setTimeout(r, job.durationMs));
  measuring = false;
  const seconds = (performance.now() - t) / 1000;
  stopped = true;
  await Promise.all(conns);
  return summary(latencies, statuses, seconds);
}

async function count(job) {
  const build = requestBytes(job);
  const latencies = [];
  const statuses = {};
  let left = job.total;
  const next = () => (left-- > 0 ? build() : null);
  const t = performance.now();
  await Promise.all(Array.from({ length: job.connections }, () => connection(job, next, (status, ms) => {
    latencies.push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
  })));
  return summary(latencies, statuses, (performance.now() - t) / 1000);
}

async function burst(job) {
  const build = requestBytes(job);
  const statuses = {};
  let completed = 0;
  let events = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: job.connections }, () => {
    let sent = false;
    const next = () => (sent ? null : ((sent = true), build()));
    return connection(job, next, (status, _ms, body) => {
      completed++;
      statuses[status] = (statuses[status] ?? 0) + 1;
      events += body.split("\nevent:").length - 1 + (body.startsWith("event:") ? 1 : 0);
    }, true);
  }));
  return { wallMs: performance.now() - t, completed, events, statuses };
}

process.on("message", async (job) => {
  try {
    const result = job.kind === "load" ? await load(job) : job.kind === "count" ? await count(job) : await burst(job);
    process.send({ ok: true, result });
  } catch (err) {
    process.send({ ok: false, error: String(err?.stack ?? err) });
  }
});
