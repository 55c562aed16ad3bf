import { join } from "node:path";
import { describe, expect, it } from "vitest";

// What the bundle changes about express's own packages (scripts/bundle.mjs): mime-types reads its
// table on first use, and iconv-lite is required from node_modules rather than bundled. Answers that
// need them are as before. dist/ is what is tested (npm test builds it before vitest runs).
const { startMockServer } = (await import(join(import.meta.dirname, "../../dist/index.js"))) as typeof import("../../src/index.js");

describe("express's packages in the bundle", () => {
  it("mime-types, read on first use, gives res.type and res.json their charset: text and JSON fault bodies", async () => {
    await using mock = await startMockServer({ fixtures: false });
    mock.control.faults.add({ id: "text", match: { route: "info.get" }, fault: { status: { status: 503, body: "busy" } } });
    mock.control.faults.add({ id: "json", match: { route: "system.ok" }, fault: { status: { status: 503, body: { detail: "busy" } } } });
    const text = await fetch(`${mock.url}/api/v1/info`);
    expect([text.status, text.headers.get("content-type"), await text.text()]).toEqual([503, "text/plain; charset=utf-8", "busy"]);
    const json = await fetch(`${mock.url}/ok`);
    expect([json.status, json.headers.get("content-type"), await json.json()]).toEqual([503, "application/json; charset=utf-8", { detail: "busy" }]);
  });

  it("iconv-lite, required from node_modules, decodes a body in another charset and names one it lacks", async () => {
    await using mock = await startMockServer({ fixtures: false });
    const search = (charset: string, body: Buffer) => fetch(`${mock.url}/threads/search`, { method: "POST", headers: { "content-type": `application/json; charset=${charset}` }, body });
    const utf16 = await search("utf-16le", Buffer.from('{"limit": 5}', "utf16le"));
    expect([utf16.status, await utf16.json()]).toEqual([200, []]);
    const unknown = await search("klingon", Buffer.from("{}"));
    expect([unknown.status, await unknown.json()]).toEqual([415, { detail: 'unsupported charset "KLINGON"' }]);
  });
});
