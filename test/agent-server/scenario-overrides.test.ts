import request from "supertest";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Express } from "express";
import { createApp, mockOf, startMockServer, type MockControl } from "../../src/index.js";

// Overrides as MSW and WireMock users expect them (DESIGN §3, §5): at equal priority the newest load
// wins, use() wins over everything until its handle is called, once serves one run, a reload replaces.
const says = (name: string, text: string, extra: Record<string, unknown> = {}) => ({ name, ...extra, events: [{ event: "values", data: { said: text } }] });

let app: Express;
let mock: MockControl;

beforeAll(() => {
  app = createApp({ fixtures: false, scenarios: [says("suite", "suite"), says("suite-fallback", "fallback")] });
  mock = mockOf(app);
});
beforeEach(() => mock.reset());

async function said(body: Record<string, unknown> = {}): Promise<string> {
  const res = await request(app).post("/runs/wait").send({ assistant_id: "agent", ...body }).expect(200);
  return res.body.said as string;
}

describe("scenario overrides", () => {
  it("within one load the order given decides; a later load wins at equal priority", async () => {
    expect(await said()).toBe("suite");
    await mock.loadScenarios(says("later", "later"));
    expect(await said()).toBe("later");
    // Priority still comes first.
    await mock.loadScenarios(says("low", "low", { priority: -1 }));
    expect(await said()).toBe("later");
  });

  it("loading a name that exists replaces it (library and POST /_mock/scenarios)", async () => {
    expect(await mock.loadScenarios(says("suite", "replaced"))).toEqual(["suite"]);
    expect(await said()).toBe("replaced");
    await request(app).post("/_mock/scenarios").set("content-type", "application/json").send(JSON.stringify(says("suite", "posted"))).expect(200);
    expect(await said()).toBe("posted");
    const listed = (await request(app).get("/_mock/scenarios")).body.items.map((s: { name: string }) => s.name);
    expect(listed).toEqual(["suite-fallback", "suite"]);
    mock.reset("scenarios");
    expect(await said()).toBe("suite");
  });

  it("use() wins over higher priorities until its handle is called; a hidden same-named scenario comes back", async () => {
    await mock.loadScenarios(says("urgent", "urgent", { priority: 10 }));
    const off = mock.use(says("override", "override"), says("suite", "suite overridden", { match: { metadata: { who: "x" } } }));
    expect(off.names).toEqual(["override", "suite"]);
    expect(await said()).toBe("override");
    const items = (await request(app).get("/_mock/scenarios")).body.items as { name: string; override: boolean }[];
    expect(items.map((s) => [s.name, s.override])).toEqual([["suite-fallback", false], ["urgent", false], ["override", true], ["suite", true]]);
    off();
    off(); // a second call does nothing
    expect(await said()).toBe("urgent");
    expect((await request(app).get("/_mock/scenarios")).body.items.map((s: { name: string }) => s.name)).toEqual(["suite-fallback", "urgent", "suite"]);
  });

  it("use() is disposable, and reset('scenarios') drops every override", async () => {
    {
      using _off = mock.use(says("scoped", "scoped"));
      expect(await said()).toBe("scoped");
    }
    expect(await said()).toBe("suite");
    mock.use(says("kept", "kept"));
    expect(await said()).toBe("kept");
    mock.reset("scenarios");
    expect(await said()).toBe("suite");
  });

  it("once: true serves one run, then the next scenario answers; reset brings it back", async () => {
    mock.use(says("one-shot", "once", { once: true }));
    expect(await said()).toBe("once");
    expect(await said()).toBe("suite");
    const items = (await request(app).get("/_mock/scenarios")).body.items as { name: string; once: boolean; used: boolean }[];
    expect(items.find((s) => s.name === "one-shot")).toMatchObject({ once: true, used: true });
    const b = createApp({ fixtures: false, scenarios: [says("boot-once", "boot", { once: true }), says("rest", "rest")] });
    const run = async () => (await request(b).post("/runs/wait").send({ assistant_id: "agent" }).expect(200)).body.said;
    expect([await run(), await run()]).toEqual(["boot", "rest"]);
    mockOf(b).reset("scenarios");
    expect(await run()).toBe("boot");
  });

  it("a running mock is async-disposable: `await using` closes it", async () => {
    let url: string;
    {
      await using server = await startMockServer({ fixtures: false });
      url = server.url;
      expect((await fetch(`${url}/ok`)).status).toBe(200);
    }
    await expect(fetch(`${url}/ok`)).rejects.toThrow();
  });
});
