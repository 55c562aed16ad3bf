import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";

const app = createApp({ seed: 3, fixtures: false, scenarios: [] });
const ITEM_KEYS = ["created_at", "key", "namespace", "updated_at", "value"];

describe("the store over HTTP", () => {
  beforeEach(() => mockOf(app).reset());

  it("put answers 204 with no body; get returns the item; a missing item is 200 null", async () => {
    const put = await request(app).put("/store/items").send({ namespace: ["users", "u1"], key: "prefs", value: { theme: "dark" } });
    expect(put.status).toBe(204);
    expect(put.text).toBe("");
    const got = await request(app).get("/store/items").query({ namespace: "users.u1", key: "prefs" }).expect(200);
    expect(Object.keys(got.body).sort()).toEqual(ITEM_KEYS);
    expect(got.body).toMatchObject({ namespace: ["users", "u1"], key: "prefs", value: { theme: "dark" } });
    const missing = await request(app).get("/store/items").query({ namespace: "users.u1", key: "nope" }).expect(200);
    expect(missing.text).toBe("null");
  });

  it("put over an item keeps created_at and moves updated_at; delete removes it", async () => {
    await request(app).put("/store/items").send({ namespace: ["a"], key: "k", value: { v: 1 } }).expect(204);
    mockOf(app).clock.advance("1m");
    await request(app).put("/store/items").send({ namespace: ["a"], key: "k", value: { v: 2 } }).expect(204);
    const got = (await request(app).get("/store/items").query({ namespace: "a", key: "k" })).body;
    expect(got.value).toEqual({ v: 2 });
    expect(got.created_at).not.toBe(got.updated_at);
    await request(app).delete("/store/items").send({ namespace: ["a"], key: "k" }).expect(204);
    expect((await request(app).get("/store/items").query({ namespace: "a", key: "k" })).body).toBeNull();
  });

  it("ttl is in minutes on the mock clock; reads refresh it unless refresh_ttl=false", async () => {
    await request(app).put("/store/items").send({ namespace: ["t"], key: "k", value: {}, ttl: 2 }).expect(204);
    mockOf(app).clock.advance("90s");
    expect((await request(app).get("/store/items").query({ namespace: "t", key: "k", refresh_ttl: "false" })).body).not.toBeNull();
    mockOf(app).clock.advance("29s");
    // Refreshed here: two more minutes from now.
    expect((await request(app).get("/store/items").query({ namespace: "t", key: "k" })).body).not.toBeNull();
    mockOf(app).clock.advance("119s");
    expect((await request(app).get("/store/items").query({ namespace: "t", key: "k", refresh_ttl: "false" })).body).not.toBeNull();
    mockOf(app).clock.advance("1s");
    expect((await request(app).get("/store/items").query({ namespace: "t", key: "k" })).body).toBeNull();
    expect((await request(app).post("/store/items/search").send({}).expect(200)).body).toEqual({ items: [] });
  });

  it("search: namespace prefix, filter with operators, query over indexed fields, limit and offset", async () => {
    const put = (namespace: string[], key: string, value: object, index?: unknown) =>
      request(app).put("/store/items").send({ namespace, key, value, ...(index === undefined ? {} : { index }) }).expect(204);
    await put(["docs", "u1"], "a", { topic: "cats", stars: 5 });
    mockOf(app).clock.advance("1s");
    await put(["docs", "u1"], "b", { topic: "dogs", stars: 3 });
    mockOf(app).clock.advance("1s");
    await put(["docs", "u2"], "c", { topic: "cats and dogs", stars: 4 }, false);
    mockOf(app).clock.advance("1s");
    await put(["other"], "d", { topic: "cats" });
    const search = async (body: object) => (await request(app).post("/store/items/search").send(body).expect(200)).body.items.map((i: { key: string }) => i.key);
    expect(await search({ namespace_prefix: ["docs"] })).toEqual(["c", "b", "a"]);
    expect(await search({ namespace_prefix: ["docs", "u1"] })).toEqual(["b", "a"]);
    expect(await search({ namespace_prefix: ["docs"], filter: { stars: { $gte: 4 } } })).toEqual(["c", "a"]);
    expect(await search({ filter: { topic: "cats" } })).toEqual(["d", "a"]);
    // `c` has index: false, so `query` does not see it.
    expect(await search({ namespace_prefix: ["docs"], query: "cats" })).toEqual(["a"]);
    expect(await search({ namespace_prefix: ["docs"], limit: 1, offset: 1 })).toEqual(["b"]);
  });

  it("namespaces: prefix, suffix (with *), max_depth, limit and offset", async () => {
    for (const ns of [["a", "x", "mem"], ["a", "y", "mem"], ["a", "y", "docs"], ["b", "z"]]) {
      await request(app).put("/store/items").send({ namespace: ns, key: "k", value: {} }).expect(204);
    }
    const list = async (body: object) => (await request(app).post("/store/namespaces").send(body).expect(200)).body;
    expect(await list({})).toEqual({ namespaces: [["a", "x", "mem"], ["a", "y", "docs"], ["a", "y", "mem"], ["b", "z"]] });
    expect((await list({ prefix: ["a", "*"], suffix: ["mem"] })).namespaces).toEqual([["a", "x", "mem"], ["a", "y", "mem"]]);
    expect((await list({ max_depth: 2 })).namespaces).toEqual([["a", "x"], ["a", "y"], ["b", "z"]]);
    expect((await list({ limit: 1, offset: 3 })).namespaces).toEqual([["b", "z"]]);
  });

  it("a put without a value is a 422 in the {detail} shape", async () => {
    const res = await request(app).put("/store/items").send({ namespace: ["a"], key: "k" }).expect(422);
    expect(typeof res.body.detail).toBe("string");
  });
});

describe("the store through SDK 2.x client.store", () => {
  let mock: MockServer;
  let client: InstanceType<typeof Client>;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 3, fixtures: false, scenarios: [] });
    client = new Client({ apiUrl: mock.url });
  });
  afterAll(async () => mock.close());

  it("putItem, getItem, searchItems, listNamespaces, deleteItem", async () => {
    await client.store.putItem(["users", "u1"], "prefs", { theme: "dark" }, { ttl: 5 });
    const item = await client.store.getItem(["users", "u1"], "prefs");
    expect(item).toMatchObject({ namespace: ["users", "u1"], key: "prefs", value: { theme: "dark" } });
    expect((await client.store.searchItems(["users"], { filter: { theme: "dark" } })).items.map((i) => i.key)).toEqual(["prefs"]);
    expect(await client.store.listNamespaces({ prefix: ["users"] })).toEqual({ namespaces: [["users", "u1"]] });
    await client.store.deleteItem(["users", "u1"], "prefs");
    expect(await client.store.getItem(["users", "u1"], "prefs")).toBeNull();
    await client.store.putItem(["users", "u1"], "short", { v: 1 }, { ttl: 1 });
    mock.control.clock.advance("61s");
    expect(await client.store.getItem(["users", "u1"], "short")).toBeNull();
  });
});
