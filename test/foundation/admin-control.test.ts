import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ControlError, RemoteMock, startMockServer, type LoadError, type MockServer } from "../../src/index.js";
import { FILTER_KEYS } from "../../src/control-error.js";
import { contextOf } from "../../src/mock-control.js";
import { until } from "../support/until.js";

/**
 * The admin API's listings, overrides and long polls, and the library's refusals of a wrong filter:
 * `/_mock` and MockControl are one interface (docs/library.md).
 */
const json = (res: Response): Promise<any> => res.json();
const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const quoted = (keys: readonly string[]) => keys.map((k) => JSON.stringify(k)).join(", ");

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ seed: 3, fixtures: false, scenarios: [{ name: "greets", events: [{ event: "values", data: { said: "hello" } }] }] });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const feedback = (key: string) => post(`${mock.tracingUrl}/api/v1/feedback`, { key, run_id: null, score: 1 });
const run = () => post(`${mock.url}/runs/wait`, { assistant_id: "agent" }).then(json);

describe("/_mock listings declare their filters", () => {
  const LISTINGS = [
    ["/_mock/feedback", FILTER_KEYS.feedback],
    ["/_mock/requests", FILTER_KEYS.request],
    ["/_mock/runs", FILTER_KEYS.run],
    ["/_mock/wait/feedback", [...FILTER_KEYS.feedback, "count", "timeout"]],
    ["/_mock/wait/requests", [...FILTER_KEYS.request, "count", "timeout"]],
    ["/_mock/wait/runs", [...FILTER_KEYS.run, "count", "timeout"]],
  ] as const;

  it("an unknown query parameter is a 400 naming the parameters the route takes", async () => {
    for (const [path, keys] of LISTINGS) {
      const res = await fetch(`${mock.url}${path}?kye=1`);
      expect(res.status, path).toBe(400);
      expect(await json(res), path).toEqual({ detail: `unknown query parameter "kye"; the parameters are ${quoted(keys)}` });
    }
  });

  it("/_mock/openapi.json lists the same parameters, typed", async () => {
    const doc = await json(await fetch(`${mock.url}/_mock/openapi.json`));
    for (const [path, keys] of LISTINGS) {
      const parameters: { name: string; in: string; schema: { type: string } }[] = doc.paths[path].get.parameters;
      expect(parameters.map((p) => [p.name, p.in]), path).toEqual(keys.map((k) => [k, "query"]));
    }
    const waitRuns: { name: string; schema: object }[] = doc.paths["/_mock/wait/runs"].get.parameters;
    expect(waitRuns.find((p) => p.name === "timeout")?.schema).toMatchObject({ type: "integer", minimum: 0, maximum: 120000 });
  });

  it("the library throws a TypeError naming the wrong key and the accepted ones", async () => {
    const control = mock.control;
    expect(() => control.feedback({ kye: "a" } as never)).toThrow(new TypeError(`unknown feedback filter "kye"; the filters are ${quoted(FILTER_KEYS.feedback)}`));
    expect(() => control.requests({ paht: "/threads" } as never)).toThrow(new TypeError(`unknown request filter "paht"; the filters are ${quoted(FILTER_KEYS.request)}`));
    expect(() => control.runs({ state: "success", thread: "x" } as never)).toThrow(new TypeError(`unknown run filter "state", "thread"; the filters are ${quoted(FILTER_KEYS.run)}`));
    expect(() => control.feedback("liked" as never)).toThrow(new TypeError(`a feedback filter must be an object with any of ${quoted(FILTER_KEYS.feedback)}; got "liked"`));
    expect(() => control.requests({ limit: -1 })).toThrow(new TypeError("limit must be a whole number ≥ 0; got -1"));
    await expect(control.waitFor.request({ methd: "GET" } as never)).rejects.toBeInstanceOf(TypeError);
    // What the control surface cannot do stays a ControlError with the admin API's status.
    expect(() => control.run("nope")).toThrow(ControlError);
  });
});

describe("reset while a request is in flight", () => {
  it("journals nothing of it afterwards: its entry belongs to the test before", async () => {
    const held = await startMockServer({ seed: 3, fixtures: false, clock: { autoAdvance: false } });
    try {
      // An answer written a byte per second of mock time: in flight until the clock moves.
      held.control.faults.add({ match: { route: "threads.create" }, fault: { drip: { bytes: 1, every_ms: 1000 } }, times: 1 });
      const answer = await post(`${held.url}/threads`, {});
      held.reset();
      let text: string | undefined;
      const reading = answer.text().then((t) => (text = t));
      while (text === undefined) {
        held.clock.advance("1s");
        await new Promise((resolve) => setImmediate(resolve));
      }
      await reading;
      expect(JSON.parse(text).thread_id).toMatch(/^[0-9a-f-]{36}$/);
      await post(`${held.url}/threads`, {});
      expect(held.requests().map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(["POST /threads 200"]);
      expect(held.requests()[0]?.id).toBe(1);
    } finally {
      await held.close();
    }
  });
});

describe("POST /_mock/overrides, DELETE /_mock/overrides/{id}: use() over HTTP", () => {
  it("adds scenarios that win over every other until deleted, once", async () => {
    const added = await fetch(`${mock.url}/_mock/overrides`, { method: "POST", headers: { "content-type": "application/yaml" }, body: "name: boom\nevents: [{event: values, data: {said: boom}}]\n" });
    expect(added.status).toBe(201);
    const { id, names } = await json(added);
    expect(names).toEqual(["boom"]);
    expect(await run()).toEqual({ said: "boom" });
    const scenarios = (await json(await fetch(`${mock.url}/_mock/scenarios`))).items;
    expect(scenarios.map((s: { name: string; override: boolean }) => [s.name, s.override])).toEqual([["greets", false], ["boom", true]]);

    const removed = await fetch(`${mock.url}/_mock/overrides/${id}`, { method: "DELETE" });
    expect(await json(removed)).toEqual({ ok: true, id, names: ["boom"] });
    expect(await run()).toEqual({ said: "hello" });
    const again = await fetch(`${mock.url}/_mock/overrides/${id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ detail: `Override ${id} not found (each is removed once)` });
  });

  it("after a reset, names scenario objects as after start-up; override ids are never given out twice", async () => {
    const add = async () => (await json(await fetch(`${mock.url}/_mock/overrides`, { method: "POST", headers: { "content-type": "application/yaml" }, body: "name: boom\nevents: [{event: values, data: {said: boom}}]\n" }))).id;
    const objectName = () => mock.loadScenarios({ name: "bad", events: [{ event: "values" }] } as never).then(
      () => "loaded",
      (err: LoadError) => err.problems[0]?.file,
    );
    expect(await objectName()).toBe("<scenario object 2>");
    const before = await add();
    mock.reset();
    expect(await objectName()).toBe("<scenario object 2>");
    const after = await add();
    expect(after).not.toBe(before);
    // The handle from before the reset finds its override gone, and leaves the new one alone.
    expect((await fetch(`${mock.url}/_mock/overrides/${before}`, { method: "DELETE" })).status).toBe(200);
    expect((await json(await fetch(`${mock.url}/_mock/scenarios`))).items.map((s: { name: string }) => s.name)).toContain("boom");
  });

  it("refuses an empty body (400), a scenario that does not load (422, its problems) and a form's content type (415)", async () => {
    const empty = await fetch(`${mock.url}/_mock/overrides`, { method: "POST", headers: { "content-type": "application/json" }, body: " " });
    expect(empty.status).toBe(400);
    const bad = await post(`${mock.url}/_mock/overrides`, [{ name: "bad", events: [{ event: "values" }] }]);
    expect(bad.status).toBe(422);
    expect(await json(bad)).toEqual({ detail: [{ file: "<POST /_mock/overrides>.json", pointer: "/0/events/0/data", reason: "required property is missing" }] });
    const form = await fetch(`${mock.url}/_mock/overrides`, { method: "POST", headers: { "content-type": "text/plain" }, body: "name: x\nevents: []\n" });
    expect(form.status).toBe(415);
    expect((await json(await fetch(`${mock.url}/_mock/scenarios`))).count).toBe(1);
  });
});

describe("GET /_mock/wait/{feedback,requests,runs}: waitFor over HTTP", () => {
  it("answers the listing once the matches are there", async () => {
    const waiting = fetch(`${mock.url}/_mock/wait/feedback?key=liked&count=2`);
    await feedback("liked");
    await feedback("other");
    await feedback("liked");
    const res = await waiting;
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.count).toBe(2);
    expect(body.items.map((f: { key: string }) => f.key)).toEqual(["liked", "liked"]);
    const requests = await json(await fetch(`${mock.url}/_mock/wait/requests?route=feedback.create&status=200&count=3`));
    expect(requests.count).toBe(3);
    const runs = fetch(`${mock.url}/_mock/wait/runs?status=success`);
    await run();
    expect((await json(await runs)).items.map((r: { scenario: string }) => r.scenario)).toEqual(["greets"]);
  });

  it("answers 408 after its timeout, saying what it waited for; refuses a timeout past 120000 ms or a count of 0", async () => {
    const late = await fetch(`${mock.url}/_mock/wait/runs?scenario=never&timeout=20`);
    expect(late.status).toBe(408);
    expect(await json(late)).toEqual({ detail: 'waited 20 ms for 1 run matching {"scenario":"never"}; 0 matches so far' });
    expect((await fetch(`${mock.url}/_mock/wait/runs?timeout=120001`)).status).toBe(400);
    expect((await fetch(`${mock.url}/_mock/wait/runs?count=0`)).status).toBe(400);
  });
});

describe("GET /_mock/wait/* when the client hangs up", () => {
  it("stops the wait, quietly", async () => {
    const waits: Promise<unknown>[] = [];
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const real = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(mock.control), "waitFor")!.get!;
    const spy = vi.spyOn(mock.control, "waitFor", "get").mockImplementation(function (this: typeof mock.control) {
      const waitFor = real.call(this) as typeof mock.control.waitFor;
      return { ...waitFor, run: (...args: Parameters<typeof waitFor.run>) => { const p = waitFor.run(...args); waits.push(p); reached(); return p; } };
    });
    const stderr = vi.spyOn(process.stderr, "write");
    try {
      const client = new AbortController();
      const asked = fetch(`${mock.url}/_mock/wait/runs?timeout=60000`, { signal: client.signal }).catch((err: Error) => err.name);
      // The request reached the route once the mock's wait is under way.
      await arrived;
      client.abort();
      expect(await asked).toBe("AbortError");
      await expect(waits[0]).rejects.toThrow();
      expect((await fetch(`${mock.url}/_mock/health`)).status).toBe(200);
      expect(stderr.mock.calls.filter(([text]) => String(text).includes("internal error"))).toEqual([]);
    } finally {
      spy.mockRestore();
      stderr.mockRestore();
    }
  });
});

describe("waitFor in the library", () => {
  it("stops at its signal, and a mock that closes rejects its waits with a ControlError 503", async () => {
    const controller = new AbortController();
    const stopped = mock.control.waitFor.feedback({ key: "never" }, { signal: controller.signal, timeout: 60_000 });
    controller.abort(new Error("test over"));
    await expect(stopped).rejects.toThrow("test over");

    const other = await startMockServer({ seed: 1, fixtures: false });
    const waiting = other.waitFor.run({ status: "success" }, { timeout: 60_000 }).catch((err: unknown) => err);
    await other.close();
    expect(await waiting).toMatchObject({ name: "ControlError", status: 503, message: "The mock closed while a waitFor waited" });
    // A wait begun after close() fails at once: nothing more can arrive.
    await expect(other.waitFor.run({ status: "success" }, { timeout: 60_000 })).rejects.toMatchObject({ status: 503, message: "The mock is closed: nothing more will arrive" });
    // Over HTTP (/_mock/wait) too: the 503 is written before the connections close.
    const remoteOne = await startMockServer({ seed: 1, fixtures: false });
    const remoteWait = new RemoteMock(remoteOne.url).waitFor.trace({ name: "never" }, { timeout: 60_000 }).catch((err: unknown) => err);
    // A trace wait listens on the mock's event bus, which nothing else here does.
    await until(() => contextOf(remoteOne.control).events.listening);
    await remoteOne.close();
    expect(await remoteWait).toMatchObject({ name: "ControlError", status: 503 });
  });

  it("a wait and the change feed both hear of a write: a collection has many subscribers", async () => {
    const events: string[] = [];
    const stop = contextOf(mock.control).events.subscribe((e) => events.push(e.type));
    try {
      const waiting = mock.waitFor.feedback({ key: "liked" });
      await feedback("liked");
      expect((await waiting).map((f) => f.key)).toEqual(["liked"]);
      expect(events).toContain("feedback.recorded");
    } finally {
      stop();
    }
  });
});
