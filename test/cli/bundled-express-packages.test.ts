import { join } from "node:path";
import { describe, expect, it } from "vitest";

// What the bundle changes about express's own packages (scripts/bundle.mjs): mime-types reads its
// table on first use, iconv-lite is required from node_modules rather than bundled, and it and qs are
// loaded on first use. Answers that need them are as before. dist/ is what is tested (npm test builds it before vitest runs).
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

  it("qs, loaded on first use, reads a form body: the fixture OAuth token endpoint finds the client it names", async () => {
    await using mock = await startMockServer({});
    const registered = await fetch(`${mock.url}/_fixtures/mcp/github-tools/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: ["http://127.0.0.1/cb"] }) });
    const { client_id } = (await registered.json()) as { client_id: string };
    const token = await fetch(`${mock.url}/_fixtures/mcp/github-tools/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=authorization_code&code=nope&client_id=${encodeURIComponent(client_id)}` });
    // Found by the form's client_id (an unread form is "Unknown client."), refused for want of its secret.
    expect([token.status, await token.json()]).toEqual([401, { error: "invalid_client", error_description: "Client authentication failed." }]);
  });
});
