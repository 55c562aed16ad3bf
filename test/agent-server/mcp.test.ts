import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";

describe("MCP: /mcp/ with @modelcontextprotocol/sdk", () => {
  let mock: MockServer;
  let client: Client;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mock.url}/mcp/`)));
  });
  afterAll(async () => {
    await client.close();
    await mock.close();
  });
  beforeEach(() => mock.reset());

  it("initializes statelessly and lists one tool per assistant", async () => {
    expect(client.getServerVersion()).toMatchObject({ name: "LangGraph" });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["agent"]);
    expect(tools[0]!.inputSchema.type).toBe("object");
  });

  it("calls a tool: a stateless run of the matching scenario, answered with its final values", async () => {
    const result = await client.callTool({ name: "agent", arguments: { messages: [{ role: "user", content: "hello there" }] } });
    expect(result.isError).toBe(false);
    const content = result.content as { type: string; text: string }[];
    const values = JSON.parse(content[0]!.text) as { messages: { type: string; content: string }[] };
    expect(values.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "hello there"],
      ["ai", "You said: hello there"],
    ]);
    expect(result.structuredContent).toEqual(values);
    const runs = mock.control.runs();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ scenario: "echo", stateless: true, route: "POST /mcp/", status: "success" });
  });

  it("a failing scenario is a tool result with isError; an unknown tool is a JSON-RPC error", async () => {
    const failed = await client.callTool({ name: "agent", arguments: { messages: [{ role: "user", content: "What is the stock price of ACME?" }] } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]!.text).toContain("__error__");
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow("Unknown tool: nope");
  });
});

describe("MCP: the wire", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
  });
  afterAll(async () => {
    await mock.close();
  });
  const BOTH = "application/json, text/event-stream";

  it("answers JSON, acknowledges notifications with 202, and refuses a client that cannot take both media types", async () => {
    const init = await request(mock.url)
      .post("/mcp/")
      .set("Accept", BOTH)
      .send({ jsonrpc: "2.0", id: "1", method: "initialize", params: { clientInfo: { name: "t", version: "1" }, protocolVersion: "2024-11-05", capabilities: {} } })
      .expect(200);
    expect(init.headers["content-type"]).toMatch(/^application\/json/);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    expect(init.body).toEqual({ jsonrpc: "2.0", id: "1", result: { protocolVersion: "2024-11-05", capabilities: { tools: { listChanged: false } }, serverInfo: { name: "LangGraph", version: "0.5.23" } } });
    const note = await request(mock.url).post("/mcp/").set("Accept", BOTH).send({ jsonrpc: "2.0", method: "notifications/initialized" }).expect(202);
    expect(note.text).toBe("");
    const refused = await request(mock.url).post("/mcp/").set("Accept", "application/json").send({ jsonrpc: "2.0", id: 1, method: "ping" }).expect(400);
    expect(refused.body.error.code).toBe(-32600);
    const unknown = await request(mock.url).post("/mcp/").set("Accept", BOTH).send({ jsonrpc: "2.0", id: 2, method: "resources/list" }).expect(200);
    expect(unknown.body).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: resources/list" } });
  });

  it("GET is 405 and DELETE 404: there are no streams or sessions", async () => {
    await request(mock.url).get("/mcp/").expect(405);
    await request(mock.url).delete("/mcp/").expect(404);
  });
});
