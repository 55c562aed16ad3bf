import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The bundle reads mime-types's table and fills its maps on first use (scripts/bundle.mjs,
// lazyMimeTypes): express's res.type and res.json, which look the charset up, answer as before.
// dist/ is what is tested (npm test builds it before vitest runs).
const { startMockServer } = (await import(join(import.meta.dirname, "../../dist/index.js"))) as typeof import("../../src/index.js");

describe("mime-types in the bundle, read on first use", () => {
  it("gives express's content types their charset: text and JSON fault bodies", async () => {
    await using mock = await startMockServer({ fixtures: false });
    mock.control.faults.add({ id: "text", match: { route: "info.get" }, fault: { status: { status: 503, body: "busy" } } });
    mock.control.faults.add({ id: "json", match: { route: "system.ok" }, fault: { status: { status: 503, body: { detail: "busy" } } } });
    const text = await fetch(`${mock.url}/api/v1/info`);
    expect([text.status, text.headers.get("content-type"), await text.text()]).toEqual([503, "text/plain; charset=utf-8", "busy"]);
    const json = await fetch(`${mock.url}/ok`);
    expect([json.status, json.headers.get("content-type"), await json.json()]).toEqual([503, "application/json; charset=utf-8", { detail: "busy" }]);
  });
});
