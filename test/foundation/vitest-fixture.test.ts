import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { ControlError, RemoteMock, test } from "../../src/vitest.js";
import { LoadError } from "../../src/index.js";
import { MockControl } from "../../src/mock-control.js";

// The `agent-platform-mock/vitest` fixture against the run's mock (started by the globalSetup in
// vitest.config.ts). Tests here run one after another: each gets the same mock, reset.
const run = (url: string) => fetch(`${url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) }).then((r) => r.json());
const json = (res: Response): Promise<any> => res.json();
const post = (url: string, body: unknown, method = "POST") => fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const feedback = (mock: RemoteMock, key: string) => post(`${mock.tracingUrl}/api/v1/feedback`, { key, run_id: null, score: 1 });

describe("agent-platform-mock/vitest", () => {
  test("hands the test the run's mock, which serves the globalSetup's scenarios", async ({ mock }) => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.inspectorUrl).toBe(`${mock.url}/_mock/ui`);
    expect(await run(mock.url)).toEqual({ said: "hello" });
    expect(await mock.loadScenarios({ name: "test-only", events: [{ event: "values", data: { said: "override" } }] })).toEqual(["test-only"]);
    expect(await run(mock.url)).toEqual({ said: "override" });
    expect((await mock.requests({ path: "/runs" })).map((r) => r.status)).toEqual([200, 200]);
  });

  test("each test gets it reset: the previous test's scenario and requests are gone", async ({ mock }) => {
    expect(await mock.requests()).toEqual([]);
    expect(await run(mock.url)).toEqual({ said: "hello" });
  });

  test("has every method of the library's control surface but the in-process summary()", () => {
    const methods = (proto: object) => Object.getOwnPropertyNames(proto).filter((name) => name !== "constructor");
    const remote = new RemoteMock("http://127.0.0.1:1");
    const missing = methods(MockControl.prototype).filter((name) => !(name in remote));
    expect(missing).toEqual(["summary"]);
    for (const group of ["faults", "waitFor", "clock"] as const) {
      const library = Object.getOwnPropertyDescriptor(MockControl.prototype, group)!.get!.call({ ctx: { clock: {}, faults: {}, journal: {} }, services: {} });
      expect(Object.keys(remote[group]).sort(), group).toEqual(Object.keys(library).sort());
    }
  });

  test("use() overrides until its handle is called, or disposed; files are read by the test's process", async ({ mock }) => {
    const off = await mock.use({ name: "boom", events: [{ event: "values", data: { said: "used" } }] });
    expect(off.names).toEqual(["boom"]);
    expect(off.id).toMatch(/^override-\d+$/);
    expect(await run(mock.url)).toEqual({ said: "used" });
    expect((await mock.scenarios()).map((s) => [s.name, s.override])).toEqual([["greets", false], ["boom", true]]);
    await off();
    await off(); // a second call does nothing, as the library's handle
    expect(await run(mock.url)).toEqual({ said: "hello" });

    const dir = mkdtempSync(join(tmpdir(), "remote-use-"));
    writeFileSync(join(dir, "a.yaml"), "- name: from-file\n  events: [{event: values, data: {said: file}}]\n");
    {
      await using _ = await mock.use(dir);
      expect(await run(mock.url)).toEqual({ said: "file" });
    }
    expect(await run(mock.url)).toEqual({ said: "hello" });

    const handle = await mock.useScenarioText("name: texted\nevents: [{event: values, data: {said: text}}]\n", "yaml");
    expect(await run(mock.url)).toEqual({ said: "text" });
    await mock.reset("scenarios");
    await handle(); // the reset took the override away already: nothing left to undo, and no error
    expect(await run(mock.url)).toEqual({ said: "hello" });
  });

  test("refuses as the library does: TypeError for a wrong filter, LoadError for a bad scenario, ControlError for the rest", async ({ mock }) => {
    await expect(mock.feedback({ kye: "liked" } as never)).rejects.toThrow(new TypeError('unknown feedback filter "kye"; the filters are "key", "run_id", "thread_id", "token_id"'));
    await expect(mock.waitFor.run({ state: "success" } as never)).rejects.toBeInstanceOf(TypeError);
    const bad = mock.use({ name: "bad", events: [{ event: "values" }] } as never);
    await expect(bad).rejects.toBeInstanceOf(LoadError);
    await expect(bad).rejects.toThrow("<POST /_mock/overrides>.json#/0/events/0/data: required property is missing");
    await expect(mock.loadScenarios("test/no-such-folder")).rejects.toThrow(/test\/no-such-folder#: no such file or folder/);
    const missing = await mock.removeScenario("nope").catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ControlError);
    expect(missing).toMatchObject({ status: 404, detail: "Scenario 'nope' not found" });
    await expect(mock.loadScenarioText("name: [", "yaml")).rejects.toMatchObject({ status: 422 });
    await expect(mock.useScenarioText("name: [", "yaml")).rejects.toMatchObject({ status: 422, detail: [expect.objectContaining({ file: "<POST /_mock/overrides>.yaml" })] });
    await expect(mock.clock.advance("soon")).rejects.toThrow(new TypeError('advance must be a duration such as "250ms", "5s", "5m", "1h" or a number of milliseconds; got "soon"'));
    await expect(mock.reset("everything" as never)).rejects.toMatchObject({ status: 400 });
  });

  test("waitFor answers once what it waits for arrives (a long poll), and a 408 ControlError after its timeout", async ({ mock }) => {
    const waiting = mock.waitFor.feedback({ key: "liked" }, { count: 2 });
    await feedback(mock, "liked");
    await feedback(mock, "other");
    await feedback(mock, "liked");
    expect((await waiting).map((f) => f.key)).toEqual(["liked", "liked"]);
    const requests = await mock.waitFor.request({ route: "feedback.create" }, { count: 3 });
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const runs = mock.waitFor.run({ status: "success" });
    await run(mock.url);
    expect((await runs).map((r) => [r.scenario, r.status])).toEqual([["greets", "success"]]);

    const late = await mock.waitFor.feedback({ key: "never" }, { timeout: 30 }).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(ControlError);
    expect(late).toMatchObject({ status: 408, message: 'waited 30 ms for 1 feedback matching {"key":"never"}; 0 matches so far' });
  });

  test("faults: add (a handle with fired() and remove()), list, remove, clear; reset('faults')", async ({ mock }) => {
    const fault = await mock.faults.add({ match: { route: "threads.create" }, fault: { status: { status: 503 } } });
    expect((await post(`${mock.url}/threads`, {})).status).toBe(503);
    expect(await fault.fired()).toBe(1);
    expect((await mock.faults.list()).map((r) => [r.id, r.fired])).toEqual([[fault.id, 1]]);
    await fault.remove();
    await fault.remove(); // gone already: no error, as the library's handle
    expect(await fault.fired()).toBe(0);
    expect((await post(`${mock.url}/threads`, {})).status).toBe(200);

    await mock.faults.add({ id: "slow", fault: { latency: { ms: 10 } } });
    await expect(mock.faults.add({ id: "slow", fault: { latency: { ms: 10 } } })).rejects.toMatchObject({ status: 409 });
    await expect(mock.faults.add({ fault: {} } as never)).rejects.toMatchObject({ status: 422 });
    await mock.faults.remove("slow");
    await expect(mock.faults.remove("slow")).rejects.toMatchObject({ status: 404, detail: "Fault rule slow not found" });
    {
      await using _ = await mock.faults.add({ fault: { status: { status: 500 } } });
      expect(await mock.faults.list()).toHaveLength(1);
    }
    expect(await mock.faults.list()).toEqual([]);
    await mock.faults.add({ fault: { status: { status: 500 } } });
    await mock.reset("faults");
    expect(await mock.faults.list()).toEqual([]);
    await mock.faults.add({ fault: { status: { status: 500 } } });
    await mock.faults.clear();
    expect(await mock.faults.list()).toEqual([]);
  });

  test("the clock: state, now, advance (and advanceClock), set", async ({ mock }) => {
    expect(await mock.clock.state()).toEqual({ now: "2026-01-15T09:00:00.000000+00:00", mode: "fixed", auto_advance: true, lifecycle: "immediate" });
    await mock.clock.advance("5m");
    await mock.advanceClock(1000);
    expect((await mock.clock.now()).toISOString()).toBe("2026-01-15T09:05:01.000Z");
    await mock.clock.set("2026-03-01T00:00:00Z");
    expect((await mock.clock.state()).now).toBe("2026-03-01T00:00:00.000000+00:00");
    await mock.reset();
    expect((await mock.clock.now()).toISOString()).toBe("2026-01-15T09:00:00.000Z");
  });

  test("runs, feedback and requests: list, get, clear", async ({ mock }) => {
    await run(mock.url);
    const [only] = await mock.runs({ scenario: "greets" });
    expect(await mock.run(only!.run_id)).toEqual(only);
    await expect(mock.run("019bc0e2-0000-7000-8000-000000000000")).rejects.toMatchObject({ status: 404 });
    await feedback(mock, "liked");
    expect(await mock.clearFeedback()).toBe(1);
    expect(await mock.feedback()).toEqual([]);
    await mock.clearRequests();
    expect(await mock.requests()).toEqual([]);
  });

  test("deployment controls: script a failure, advance what is in flight", async ({ mock }) => {
    const created = await json(await post(`${mock.url}/v2/deployments`, { name: "img", source: "external_docker", source_config: {}, source_revision_config: { image_uri: "docker.io/acme/agent:1" }, secrets: [] }));
    expect(await mock.failDeployment(created.id, "DEPLOYING")).toEqual({ deployment_id: created.id, at: "DEPLOYING", applies_to: "next", revision_id: null });
    await expect(mock.failDeployment(created.id, "BUILDING")).rejects.toMatchObject({ status: 400 });
    await post(`${mock.url}/v2/deployments/${created.id}`, { source_revision_config: { image_uri: "docker.io/acme/agent:2" } }, "PATCH");
    const revisions = await json(await fetch(`${mock.url}/v2/deployments/${created.id}/revisions`));
    expect(revisions.resources.map((r: { status: string }) => r.status)).toEqual(["DEPLOY_FAILED", "DEPLOYED"]);
    // The lifecycle is "immediate": nothing stays in flight to advance.
    await expect(mock.advanceDeployment(created.id)).rejects.toMatchObject({ status: 409, detail: `Deployment ${created.id} has no revision in flight (its latest revision is DEPLOY_FAILED).` });
  });
});
