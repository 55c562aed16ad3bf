import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp } from "../../src/index.js";
import { ReferenceDocument } from "../support/reference-document.js";

// Every operation of the production agent server's document is served by the mock (issue 9):
// compared through the mock's own /openapi.json, which is generated from its route declarations.
const normalise = (op: string) => op.replace(/\{[^}]+\}/g, "{}");

describe("the agent server's operations", () => {
  it("the mock serves all of the document's operations", async () => {
    const doc = new ReferenceDocument("agent-server.openapi.json");
    const wanted = doc.operations().map(normalise);
    expect(wanted).toHaveLength(62);
    const mine = (await request(createApp({ seed: 1, fixtures: false })).get("/openapi.json").expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const served = new Set(Object.entries(mine.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => normalise(`${m.toUpperCase()} ${path}`))));
    expect(wanted.filter((op) => !served.has(op))).toEqual([]);
  });
});
