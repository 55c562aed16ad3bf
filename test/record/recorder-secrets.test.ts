import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import { jsonPoster, listener, sse, user, type Listener } from "./helpers.js";

/**
 * Issue 28, defect 7: nothing secret reaches a recorded file — not its name, not `name:`, not the
 * data. The target echoes what it got (headers included) the way a careless server or graph can.
 */

const KEY = "lsv2_pt_0f1e2d3c4b5a69788796a5b4c3d2e1f0_abcdef0123";
const CLIENT_KEY = "client-key-7c1f9b2e44d0a8c3";
const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

/** Each secret, and where it sits in the run's input: by key (every style), nested, or by shape in text. */
const BY_KEY: Record<string, unknown> = {
  openaiApiKey: "openai-value-by-camel-case-1",
  OPENAI_API_KEY: "openai-value-by-upper-snake-2",
  "anthropic-api-key": "anthropic-value-by-kebab-3",
  aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  private_key: "private-key-value-by-snake-4",
  privateKey: "private-key-value-by-camel-5",
  "Private-Key": "private-key-value-by-kebab-6",
  clientSecret: "client-secret-value-7",
  dbPassword: "db-password-value-8",
  credentials: { username: "credential-user-name-9", nested: [{ value: "credential-nested-value-10" }] },
  auth: { scheme: "custom", value: "auth-nested-value-11" },
  refreshToken: "refresh-token-value-12",
};
const BY_SHAPE = [
  JWT,
  "AKIAIOSFODNN7EXAMPLE",
  "ghp_0123456789abcdefghijABCDEFGHIJ012345",
  "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
  "AIzaSyA1234567890abcdefghijklmnopqrstuv",
  "ya29.a0AfH6SMBx1234567890abcdefghij",
  "GOCSPX-abcdefghijklmnopqrstuvwx",
  "Basic dXNlcjpodW50ZXIyMjI=",
  "Bearer opaque-bearer-token-13",
  "sk-ant-api03-abcdefghijklmnop",
  "https://bob:url-password-14@db.example/x",
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1234567890\n-----END RSA PRIVATE KEY-----",
  "OPENAI_API_KEY=env-file-value-15",
];
/** What must stay: counts, ordinary words next to credential-like ones, a store item's `key`. */
const KEPT = { usage_metadata: { total_tokens: 42, input_tokens: 40 }, key: "item-1", note: "Basic instructions for the team", max_tokens: 1024, token_count: 7 };
const SECRET_VALUES = [
  KEY,
  CLIENT_KEY,
  ...BY_SHAPE.map((s) => s.replace(/^(Basic|Bearer) /, "").replace(/^https:\/\/bob:/, "").replace(/^OPENAI_API_KEY=/, "")),
  "url-password-14",
  "MIIEowIBAAKCAQEAx1234567890",
  ...JSON.stringify(BY_KEY).match(/"[^"]*-\d+"|wJalr[^"]+/g)!.map((s) => s.replace(/"/g, "")),
];

describe("recorded files hold no secrets", () => {
  let target: Listener;
  let recorder: Recorder;
  let out: string;
  let texts: string[];

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-secrets-"));
    target = await listener((hit, res) => {
      const body = JSON.parse(hit.body || "{}") as { input?: unknown };
      const echoed = { input: body.input, headers: { "x-api-key": hit.headers["x-api-key"], authorization: hit.headers.authorization }, kept: KEPT };
      if (hit.url.endsWith("/runs/stream")) {
        return sse(res, "1ef4f6a0-0000-4000-8000-00000000000a", [
          { event: "values", data: echoed },
          { event: "error", data: { error: `InvalidKey ${KEY}`, message: `key ${String(hit.headers["x-api-key"])} was refused; token ${JWT}` } },
        ]);
      }
      if (hit.url.endsWith("/runs/wait")) return res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ detail: `bad key ${KEY} and Bearer ${CLIENT_KEY}` }));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    recorder = await startRecorder({ target: target.url, apiKey: KEY, out, port: 0 });
    const post = jsonPoster(recorder.url);
    // The configured key quoted in the message: the file's name and `name:` come from this text.
    await post("/runs/stream", { assistant_id: "agent", input: { ...user(`my key is ${KEY} thanks`), ...BY_KEY, shapes: BY_SHAPE, kept: KEPT } });
    // A client's own key, sent in its header and quoted in its message.
    await post("/threads/t1/runs/stream", { assistant_id: "agent", input: user(`use ${CLIENT_KEY} please`) }, { "x-api-key": CLIENT_KEY });
    await post("/runs/wait", { assistant_id: "agent", input: user(`Bearer ${CLIENT_KEY}`) }, { authorization: `Bearer ${CLIENT_KEY}` });
    await recorder.settled();
    texts = recorder.files.map((f) => readFileSync(f, "utf8"));
  });
  afterAll(async () => {
    await recorder?.close();
    await target?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("names files and scenarios from the redacted message, never from a key", () => {
    expect(recorder.files.map((f) => basename(f))).toEqual(["rec-001-my-key-is-redacted-thanks.yaml", "rec-002-use-redacted-please.yaml", "rec-003-redacted.yaml"]);
    expect(texts.map((t) => (parse(t) as { name: string }).name)).toEqual(["rec-001-my-key-is-redacted-thanks", "rec-002-use-redacted-please", "rec-003-redacted"]);
  });

  it("writes no secret: by key in any style, nested under credential keys, by shape, in error names and details", () => {
    for (const text of texts) for (const secret of SECRET_VALUES) expect(text, secret).not.toContain(secret);
    // Slugs of the keys: the name is lower-cased and hyphenated, so look for that form too.
    const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    for (const file of recorder.files) for (const secret of [KEY, CLIENT_KEY]) expect(file).not.toContain(slug(secret).slice(8, 24));
  });

  it("keeps the shape, the numbers and the ordinary words", () => {
    const first = parse(texts[0] as string) as { events: { data: any }[]; end: unknown; match: unknown };
    const data = first.events[0]?.data;
    expect(data.input.credentials).toEqual({ username: "[redacted]", nested: [{ value: "[redacted]" }] });
    expect(data.input.auth).toEqual({ scheme: "[redacted]", value: "[redacted]" });
    expect(data.input.openaiApiKey).toBe("[redacted]");
    expect(data.input["anthropic-api-key"]).toBe("[redacted]");
    expect(data.input.shapes).toEqual([
      "[redacted]",
      "[redacted]",
      "[redacted]",
      "[redacted]",
      "[redacted]",
      "[redacted]",
      "[redacted]",
      "Basic [redacted]",
      "[redacted]",
      "[redacted]",
      "https://[redacted]@db.example/x",
      "[redacted]",
      "OPENAI_API_KEY=[redacted]",
    ]);
    expect(data.kept).toEqual(KEPT);
    expect(data.headers).toEqual({ "x-api-key": "[redacted]" });
    expect(first.end).toEqual({ error: { error: "InvalidKey [redacted]", message: "key [redacted] was refused; token [redacted]" } });
    expect(first.match).toEqual({ assistant_id: "agent", input: { messages: [{ content: { $contains: "my key is [redacted] thanks" } }] } });
    expect((parse(texts[2] as string) as { end: unknown }).end).toEqual({ http: { status: 400, detail: "bad key [redacted] and [redacted]" } });
  });

  it("every file passes validate", () => {
    expect(validateScenarioDocuments(readDocuments([out], [], true))).toEqual([]);
  });
});

/**
 * A configured key shorter than the 8 characters a shape-free secret is matched everywhere from:
 * the server echoing it (as a value, a key, in text) must not put it in the file either, while
 * ordinary text holding its pieces or other short words stays as sent.
 */
describe("a short --api-key is redacted too", () => {
  const SHORT = "k3y!pw";
  /** A client's own short key, and a short cookie value (a preference, not a credential). */
  const CLIENT_SHORT = "c1i3nt";
  let target: Listener;
  let recorder: Recorder;
  let out: string;
  let texts: string[];

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-short-"));
    target = await listener((hit, res) => {
      const key = String(hit.headers["x-api-key"]);
      sse(res, "1ef4f6a0-0000-4000-8000-00000000000b", [
        {
          event: "values",
          data: {
            echoed: key,
            [key]: "as a key name",
            said: `the key ${key}, quoted.`,
            query: `?api=${key}&x=1`,
            nested: [{ deep: key }],
            // Pieces of the key and other short strings: not the key, so kept.
            kept: ["key", "pw", "k3y", "y!p", "k3y!", "step 1 of 2", "en-GB", "ok"],
          },
        },
        { event: `updates|tools:${key}`, data: { tools: { n: 1 } } },
      ]);
    });
    recorder = await startRecorder({ target: target.url, apiKey: SHORT, out, port: 0, format: "json" });
    const post = jsonPoster(recorder.url);
    await post("/runs/stream", { assistant_id: "agent", input: user("hello world") });
    await post("/runs/stream", { assistant_id: "agent", input: user(`client ${CLIENT_SHORT}`) }, { "x-api-key": CLIENT_SHORT, cookie: "consent=1; lang=en" });
    await recorder.settled();
    texts = recorder.files.map((f) => readFileSync(f, "utf8"));
  });
  afterAll(async () => {
    await recorder?.close();
    await target?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("writes neither the configured key nor a client's short key, wherever the server echoes it", () => {
    expect(recorder.files.map((f) => basename(f))).toEqual(["rec-001-hello-world.json", "rec-002-client-redacted.json"]);
    expect(texts[0]).not.toContain(SHORT);
    expect(texts[1]).not.toContain(CLIENT_SHORT);
    const data = (JSON.parse(texts[0] as string) as { events: { data: Record<string, unknown> }[] }).events[0]?.data;
    expect(data).toEqual({
      echoed: "[redacted]",
      "[redacted]": "as a key name",
      said: "the key [redacted], quoted.",
      query: "?api=[redacted]&x=1",
      nested: [{ deep: "[redacted]" }],
      kept: ["key", "pw", "k3y", "y!p", "k3y!", "step 1 of 2", "en-GB", "ok"],
    });
    // A subgraph's namespace in an event name is the server's text too.
    expect((JSON.parse(texts[0] as string) as { events: { event: string }[] }).events[1]?.event).toBe("updates|tools:[redacted]");
  });

  it("leaves ordinary words alone: a short cookie value is not taken for a credential", () => {
    const data = (JSON.parse(texts[1] as string) as { events: { data: Record<string, unknown> }[] }).events[0]?.data;
    expect(data?.kept).toEqual(["key", "pw", "k3y", "y!p", "k3y!", "step 1 of 2", "en-GB", "ok"]);
  });
});
