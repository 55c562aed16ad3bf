import { readFileSync } from "node:fs";
import request from "supertest";
import { expect, it } from "vitest";
import { createApp } from "../../src/index.js";

const page = readFileSync(new URL("../../docs/deployments.md", import.meta.url), "utf8");
const body = (source: string) => JSON.parse(new RegExp(`<!-- example:create-${source} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1] ?? "null");

it.each(["github", "external_docker", "internal_docker", "internal_source"])("docs/deployments.md's %s create body creates that deployment", async (source) => {
  const app = createApp({ seed: 7, publicUrl: "http://mock.test" });
  const sent = body(source);
  expect(sent).toMatchObject({ source });
  const created = await request(app).post("/v2/deployments").send(sent);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ name: sent.name, source, source_revision_config: expect.any(Object) });
  expect(created.body.source_config).toMatchObject(Object.fromEntries(Object.entries(sent.source_config).filter(([, v]) => v !== null)));
  const read = await request(app).get(`/v2/deployments/${created.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body.name).toBe(sent.name);
});
