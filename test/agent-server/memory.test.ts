import { describe, expect, it } from "vitest";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { createApp } from "../../src/index.js";

// A full collection on demand, so that "nothing holds it any more" is something a test can see.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

function post(port: number, path: string, body: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, path, method: "POST", headers: { "content-type": "application/json", connection: "close" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve(text));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("memory kept per run", () => {
  it("a finished run keeps its events for joins but not the request that created it", async () => {
    const app = createApp({ seed: 1, fixtures: false, scenarios: [{ name: "x", events: [{ event: "values", data: { a: 1 } }] }] });
    const runRequests: WeakRef<IncomingMessage>[] = [];
    const server = createServer((req, res) => {
      if (req.url?.includes("/runs/")) runRequests.push(new WeakRef(req));
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const { port } = server.address() as AddressInfo;
    const { thread_id } = JSON.parse(await post(port, "/threads", {})) as { thread_id: string };
    await post(port, `/threads/${thread_id}/runs/stream`, { assistant_id: "agent", feedback_keys: ["k"] });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    expect(runRequests).toHaveLength(1);
    expect(runRequests[0]!.deref()).toBeUndefined();
  });
});
