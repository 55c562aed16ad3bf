import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, LoadError, mockOf } from "../../src/index.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";

function files(contents: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "scenarios-"));
  for (const [name, text] of Object.entries(contents)) writeFileSync(join(dir, name), text);
  return dir;
}

function loadError(scenarios: unknown[]): LoadError {
  try {
    createApp({ fixtures: false, scenarios: scenarios as never });
  } catch (err) {
    if (err instanceof LoadError) return err;
    throw err;
  }
  throw new Error("expected a LoadError");
}

describe("scenario files", () => {
  it("loads JSON and YAML files, one scenario or a list, in file order", async () => {
    const dir = files({
      "a.yaml": "- name: one\n  events: [ { event: values, data: { n: 1 } } ]\n- name: two\n  match: { input: { two: true } }\n",
      "b.json": JSON.stringify({ name: "three", graph_id: "helper" }),
    });
    const a = createApp({ fixtures: false, scenarios: [dir] });
    const list = (await request(a).get("/_mock/scenarios").expect(200)).body;
    expect(list.count).toBe(3);
    expect(list.items.map((s: { name: string; source: string }) => [s.name, s.source])).toEqual([
      ["one", `${join(dir, "a.yaml")}#/0`],
      ["two", `${join(dir, "a.yaml")}#/1`],
      ["three", `${join(dir, "b.json")}#`],
    ]);
    const graphs = (await request(a).post("/assistants/search").send({ sort_by: "name", sort_order: "asc" })).body.map((x: { graph_id: string }) => x.graph_id);
    expect(graphs).toEqual(["agent", "helper"]);
  });

  it("a file edited between two mocks is what the second plays; the first keeps what it read", async () => {
    const dir = files({ "a.yaml": "name: one\nevents: [ { event: values, data: { n: 1 } } ]\n" });
    const first = createApp({ seed: 1, fixtures: false, scenarios: [dir] });
    writeFileSync(join(dir, "a.yaml"), "name: one\nevents: [ { event: values, data: { n: 2 } } ]\n");
    const second = createApp({ seed: 1, fixtures: false, scenarios: [dir] });
    const played = async (app: typeof first) => (await request(app).post("/runs/wait").send({ assistant_id: "agent" }).expect(200)).body;
    expect(await played(first)).toEqual({ n: 1 });
    expect(await played(second)).toEqual({ n: 2 });
  });

  it("refuses a bad scenario with file, JSON pointer, reason and, in YAML, the line", () => {
    const dir = files({ "bad.yaml": "name: bad\nturns:\n  - events:\n      - { event: value, data: 1 }\n    end: explode\n  - end: { error: { message: no class } }\n" });
    const err = loadError([dir]);
    expect(err.problems).toEqual([
      { file: join(dir, "bad.yaml"), pointer: "/turns/0/events/0/event", line: 4, reason: 'not a stream event name; use values, updates, messages, messages/partial, messages/complete, messages/metadata, custom, events, debug, tasks, checkpoints or tools, optionally followed by |<namespace> parts; got "value"' },
      { file: join(dir, "bad.yaml"), pointer: "/turns/0/end", line: 5, reason: 'must be one of "success", "interrupt", "disconnect"; got "explode"' },
      // A missing key's line is the line of the object that lacks it.
      { file: join(dir, "bad.yaml"), pointer: "/turns/1/end/error/error", line: 6, reason: "required property is missing" },
    ]);
    expect(err.message).toContain(`${join(dir, "bad.yaml")}#/turns/0/end (line 5): must be one of`);
    const json = files({ "bad.json": JSON.stringify({ name: "bad", end: "explode" }) });
    expect(loadError([json]).problems).toEqual([{ file: join(json, "bad.json"), pointer: "/end", reason: expect.any(String) }]);
  });

  it("checks what the schema cannot: duplicate names, operators, regular expressions, templates, turns with events", () => {
    const err = loadError([
      { name: "dup" },
      { name: "dup" },
      { name: "ops", match: { input: { a: { $startsWith: "x" }, b: { $regex: "(" }, c: { $exists: "yes" }, d: { $contains: "x", plain: 1 } } } },
      { name: "tpl", events: [{ event: "values", data: { a: "{{nope}}", b: "{{faker.person.nothing}}", c: "{{input.ok}} {{id.ok}}" } }] },
      { name: "both", turns: [{}], events: [] },
    ]);
    expect(err.problems.map((p) => [p.file, p.pointer, p.reason.split(";")[0]])).toEqual([
      ["<scenario object 2>", "/name", 'duplicate scenario name "dup" (also at <scenario object 1>#/name)'],
      ["<scenario object 3>", "/match/input/a/$startsWith", "unknown operator"],
      ["<scenario object 3>", "/match/input/b/$regex", expect.stringMatching(/^invalid regular expression: /)],
      ["<scenario object 3>", "/match/input/c/$exists", "$exists takes true or false"],
      ["<scenario object 3>", "/match/input/d", "mixes operators ($contains) with plain keys"],
      ["<scenario object 4>", "/events/0/data/a", "template {{nope}}: unknown expression"],
      ["<scenario object 4>", "/events/0/data/b", expect.stringContaining("template {{faker.person.nothing}}: not a faker method")],
      ["<scenario object 5>", "/turns", "give either turns or the single-turn shorthand (events, steps, end, faults, store), not both"],
    ]);
  });

  it("reports every problem at once (schema, operators and templates of the same scenario), with did-you-mean hints", () => {
    const err = loadError([
      {
        name: "all",
        evnets: [],
        match: { input: { q: { $contain: "x" } } },
        turns: [{ events: [{ event: "values", data: { a: "{{inpt.text}}", b: "{{run_idd}}", c: "{{faker.person.fistName}}" } }], end: "sucess" }],
      },
      { name: "fine-but-templated", events: [{ event: "values", data: "{{zzzzzz}}" }] },
    ]);
    expect(err.problems.map((p) => [p.file, p.pointer, p.reason])).toEqual([
      ["<scenario object 1>", "/evnets", 'unknown property (not in the schema; did you mean "events"?)'],
      ["<scenario object 1>", "/turns/0/end", 'must be one of "success", "interrupt", "disconnect"; got "sucess"'],
      ["<scenario object 1>", "/match/input/q/$contain", 'unknown operator (did you mean "$contains"?); use one of $contains, $regex, $exists'],
      ["<scenario object 1>", "/turns/0/events/0/data/a", expect.stringMatching(/^template \{\{inpt\.text\}\}: unknown expression \(did you mean \{\{input\.text\}\}\?\); use one of /)],
      ["<scenario object 1>", "/turns/0/events/0/data/b", expect.stringMatching(/^template \{\{run_idd\}\}: unknown expression \(did you mean \{\{run_id\}\}\?\); /)],
      ["<scenario object 1>", "/turns/0/events/0/data/c", expect.stringMatching(/^template \{\{faker\.person\.fistName\}\}: not a faker method .*\(did you mean faker\.person\.firstName\?\)$/)],
      // Nothing is close to a word that is no typo: no hint.
      ["<scenario object 2>", "/events/0/data", expect.stringMatching(/^template \{\{zzzzzz\}\}: unknown expression; use one of /)],
    ]);
  });

  it("every bundled scenario is valid (what `agent-platform-mock validate scenarios/` checks)", () => {
    const problems: never[] = [];
    const docs = readDocuments([BUNDLED_SCENARIOS], problems, true);
    expect(docs.length).toBeGreaterThanOrEqual(9);
    expect(validateScenarioDocuments(docs)).toEqual([]);
    expect(validateScenarioDocuments([{ file: "x.json", content: { name: "x", priority: "high" } }])).toEqual([{ file: "x.json", pointer: "/priority", reason: 'must be integer; got "high"' }]);
  });
});

describe("scenarios at run time", () => {
  it("POST /_mock/scenarios loads YAML or JSON, refuses bad uploads whole, DELETE removes, reset('scenarios') restores", async () => {
    const a = createApp({ fixtures: false, scenarios: [{ name: "base", match: { input: { base: true } } }] });
    const yaml = "name: uploaded\nmatch: { metadata: { via: upload } }\nevents:\n  - { event: values, data: { from: upload } }\n";
    expect((await request(a).post("/_mock/scenarios").set("content-type", "application/json").send(JSON.stringify([{ name: "j1" }, { name: "j2" }])).expect(200)).body.loaded).toEqual(["j1", "j2"]);
    expect((await request(a).post("/_mock/scenarios").set("content-type", "application/yaml").send(yaml).expect(200)).body).toEqual({ loaded: ["uploaded"], count: 1 });
    const refused = await request(a).post("/_mock/scenarios").set("content-type", "application/json").send(JSON.stringify([{ name: "ok" }, { name: "ok" }])).expect(422);
    expect(refused.body.detail).toEqual([{ file: "<POST /_mock/scenarios>.json", pointer: "/1/name", reason: expect.stringContaining('duplicate scenario name "ok"') }]);
    const broken = await request(a).post("/_mock/scenarios").set("content-type", "application/yaml").send("name: [unclosed").expect(422);
    expect(broken.body.detail[0].reason).toMatch(/^invalid YAML at line 1/);
    const badYaml = await request(a).post("/_mock/scenarios").set("content-type", "application/yaml").send("name: y\nevents:\n  - { event: values }\n").expect(422);
    expect(badYaml.body.detail).toEqual([{ file: "<POST /_mock/scenarios>.yaml", pointer: "/events/0/data", line: 3, reason: "required property is missing" }]);
    expect((await request(a).get("/_mock/scenarios")).body.items.map((s: { name: string }) => s.name)).toEqual(["base", "j1", "j2", "uploaded"]);

    const { thread_id } = (await request(a).post("/threads").send({})).body;
    await request(a).post(`/threads/${thread_id}/runs/wait`).send({ assistant_id: "agent", metadata: { via: "upload" } }).expect(200, { from: "upload" });

    await request(a).delete("/_mock/scenarios/uploaded").expect(200, { ok: true, name: "uploaded" });
    await request(a).delete("/_mock/scenarios/uploaded").expect(404, { detail: "Scenario 'uploaded' not found" });
    await request(a).post("/_mock/reset").send({ scope: "scenarios" }).expect(200);
    expect((await request(a).get("/_mock/scenarios")).body.items.map((s: { name: string }) => s.name)).toEqual(["base"]);
  });

  it("mock.loadScenarios takes objects or paths and throws LoadError on a bad one", async () => {
    const a = createApp({ fixtures: false });
    const mock = mockOf(a);
    expect(await mock.loadScenarios({ name: "lib", events: [{ event: "values", data: { lib: true } }] })).toEqual(["lib"]);
    await expect(mock.loadScenarios([{ name: "lib", priority: "high" } as never])).rejects.toBeInstanceOf(LoadError);
    const { thread_id } = (await request(a).post("/threads").send({})).body;
    await request(a).post(`/threads/${thread_id}/runs/wait`).send({ assistant_id: "agent" }).expect(200, { lib: true });
  });

  it("priority beats load order; the first matching scenario wins", async () => {
    const a = createApp({ fixtures: false, scenarios: [{ name: "first", events: [{ event: "values", data: { s: 1 } }] }, { name: "urgent", priority: 5, match: { input: { urgent: true } }, events: [{ event: "values", data: { s: 2 } }] }] });
    const { thread_id } = (await request(a).post("/threads").send({})).body;
    await request(a).post(`/runs/wait`).send({ assistant_id: "agent", input: { urgent: true } }).expect(200, { s: 2 });
    await request(a).post(`/threads/${thread_id}/runs/wait`).send({ assistant_id: "agent", input: { urgent: false } }).expect(200, { s: 1 });
  });

  it("matches $contains on lists, $regex, $exists, thread_id and the assistant UUID", async () => {
    const thread = "11111111-2222-4333-8444-555555555555";
    const a = createApp({
      fixtures: false,
      scenarios: [
        { name: "tags", match: { input: { tags: { $contains: { k: "x" } } } }, events: [{ event: "values", data: { s: "tags" } }] },
        { name: "regex", match: { input: { q: { $regex: "/^hel+o$/i" } } }, events: [{ event: "values", data: { s: "regex" } }] },
        { name: "absent", match: { input: { q: { $exists: false } }, thread_id: thread }, events: [{ event: "values", data: { s: "absent" } }] },
        { name: "by-uuid", match: { assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" }, events: [{ event: "values", data: { s: "uuid" } }] },
      ],
    });
    const wait = (input: object, path = "/runs/wait") => request(a).post(path).send({ assistant_id: "agent", input, if_not_exists: "create" });
    expect((await wait({ tags: [{ k: "y" }, { k: "x", more: 1 }] })).body).toEqual({ s: "tags" });
    expect((await wait({ q: "HELLLO" })).body).toEqual({ s: "regex" });
    expect((await wait({}, `/threads/${thread}/runs/wait`)).body).toEqual({ s: "absent" });
    expect((await wait({ q: "bye" })).body).toEqual({ s: "uuid" });
  });
});
