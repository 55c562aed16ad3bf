import { readFileSync } from "node:fs";
import request from "supertest";
import { expect, it } from "vitest";
import { createApp } from "../../src/index.js";

const page = readFileSync(new URL("../../docs/security.md", import.meta.url), "utf8");
const section = page.split("## Routes that take no API key")[1]?.split("\n## ")[0] ?? "";
/** `METHOD /path` of every row of the table (the fixture servers' row names prefixes, not routes). */
const documented = [...section.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)].map((m) => m[1]!);
const sample = (path: string) => path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");

it("docs/security.md lists exactly the routes that answer without the API key", async () => {
  const app = createApp({ seed: 1, apiKey: "secret-key" });
  const doc = (await request(app).get("/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
  const open: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    // The same routes again under an agent deployment's URL, and the third-party stand-ins.
    if (path.startsWith("/agents/{deployment_id}") || path.includes("/_fixtures/mcp/")) continue;
    for (const method of Object.keys(operations)) {
      const res = await request(app)[method as "get"](sample(path));
      if (res.status !== 401 && res.status !== 403) open.push(`${method.toUpperCase()} ${path}`);
    }
  }
  expect(open.sort()).toEqual(documented.filter((row) => row !== "GET /openapi.json").sort());
  expect((await request(app).get("/openapi.json")).status).toBe(200);
  // The fixture servers' row: their discovery document answers without the key.
  expect((await request(app).get("/.well-known/oauth-authorization-server/_fixtures/mcp/none")).status).not.toBe(401);
  // And a route not in the table is refused without the key, answered with it.
  expect((await request(app).post("/threads").send({})).status).toBe(403);
  expect((await request(app).post("/threads").set("x-api-key", "secret-key").send({})).status).toBe(200);
});
