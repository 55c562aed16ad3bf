import { describe, expect, it } from "vitest";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import express from "express";
import request from "supertest";
import { createApp } from "../../src/index.js";
import { MockContext } from "../../src/context.js";
import { agentServer, agentServerModule } from "../../src/agent-server/index.js";
import { Registrar } from "../../src/http/registrar.js";
import { errorHandler } from "../../src/http/fallback.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { waitFor } from "./helpers.js";

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

describe("runs that can no longer be joined", () => {
  function agentApp(scenarios: ScenarioInput[]) {
    const ctx = new MockContext({ seed: 1, fixtures: false, clock: { autoAdvance: false } });
    const agent = agentServer(ctx, scenarios);
    const app = express();
    const registrar = new Registrar(ctx);
    registrar.add(agentServerModule(ctx, agent));
    registrar.mountOn(app);
    app.use(errorHandler(ctx.clock));
    return { agent, app };
  }
  const quick: ScenarioInput = { name: "quick", priority: -1, events: [{ event: "values", data: { a: 1 } }] };
  const slow: ScenarioInput = { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { a: 2 }, delay_ms: 60_000 }] };

  it("are forgotten: runs of a deleted thread, stateless runs whose thread went with them, rolled-back runs", async () => {
    const { agent, app } = agentApp([quick, slow]);
    const tid = (await request(app).post("/threads").send({}).expect(200)).body.thread_id as string;
    const wait = async (path: string, body: object) => (await request(app).post(path).send({ assistant_id: "agent", ...body }).expect(200)).headers["content-location"] as string;
    const idOf = (location: string) => location.split("/").at(-1)!;

    const kept = idOf(await wait(`/threads/${tid}/runs/wait`, {}));
    expect(agent.runs.execution(kept)?.outcome?.kind).toBe("success");
    await request(app).get(`/threads/${tid}/runs/${kept}/stream`).expect(200);

    const stateless = idOf(await wait("/runs/wait", {}));
    expect(agent.runs.execution(stateless)).toBeUndefined();

    const first = (await request(app).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true } }).expect(200)).body.run_id as string;
    await waitFor(() => agent.runs.active(tid).length === 1 && agent.runs.execution(first)?.frames.length === 1);
    const second = (await request(app).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", multitask_strategy: "rollback" }).expect(200)).body.run_id as string;
    await waitFor(() => agent.runs.execution(second)?.outcome !== undefined);
    expect(agent.runs.execution(first)).toBeUndefined();

    await request(app).delete(`/threads/${tid}`).expect(204);
    expect([kept, second].map((id) => agent.runs.execution(id))).toEqual([undefined, undefined]);
    expect(agent.runs.active(tid)).toEqual([]);
  });
});
