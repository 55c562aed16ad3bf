import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { startMockServer, type MockServer } from "../../src/index.js";

/**
 * What the Python langsmith client sends, written with the standard library only: it reads `/info`,
 * then posts one multipart batch the way the client's `_multipart_ingest_ops` does — a `post.<id>`
 * part with the run, `post.<id>.inputs`/`.outputs` parts, each with its own Content-Length header
 * (requests_toolbelt's MultipartEncoder), timestamps as timezone-aware ISO text and microsecond
 * dotted orders.
 */
const SCRIPT = String.raw`
import json, sys, uuid, urllib.request
from datetime import datetime, timezone, timedelta

api = sys.argv[1]
info = json.load(urllib.request.urlopen(api + "/info"))
assert info["batch_ingest_config"]["use_multipart_endpoint"] is True, info

start = datetime(2026, 1, 15, 9, 0, 0, 123456, tzinfo=timezone.utc)
root, child = uuid.UUID("0198c0de-2700-7000-8000-0000000000a1"), uuid.UUID("0198c0de-2700-7000-8000-0000000000a2")
def dotted(at, run_id):
    return at.strftime("%Y%m%dT%H%M%S%fZ") + str(run_id)
root_order = dotted(start, root)
child_start = start + timedelta(milliseconds=250)
runs = [
    ({"id": str(root), "trace_id": str(root), "dotted_order": root_order, "name": "pipeline", "run_type": "chain",
      "start_time": start.isoformat(), "end_time": (start + timedelta(seconds=1)).isoformat(), "session_name": "py-project",
      "extra": {"metadata": {"lang": "python"}, "runtime": {"sdk": "langsmith-py"}}, "tags": ["py"]},
     {"question": "2+2"}, {"answer": 4}),
    ({"id": str(child), "trace_id": str(root), "parent_run_id": str(root), "dotted_order": root_order + "." + dotted(child_start, child),
      "name": "add", "run_type": "tool", "start_time": child_start.isoformat(), "end_time": (child_start + timedelta(milliseconds=10)).isoformat(),
      "session_name": "py-project", "error": None},
     {"a": 2, "b": 2}, {"output": 4}),
]
boundary = uuid.uuid4().hex
body = b""
def part(name, data):
    global body
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n"
             f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data + b"\r\n"
for run, inputs, outputs in runs:
    part(f"post.{run['id']}", json.dumps(run).encode())
    part(f"post.{run['id']}.inputs", json.dumps(inputs).encode())
    part(f"post.{run['id']}.outputs", json.dumps(outputs).encode())
body += f"--{boundary}--\r\n".encode()
req = urllib.request.Request(api + "/runs/multipart", data=body, method="POST",
    headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Api-Key": "py-key"})
with urllib.request.urlopen(req) as res:
    print(res.status, res.read().decode())
`;

function runPython(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(script);
  });
}

describe("a multipart batch as the Python client posts it", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 3, apiKey: "py-key" });
  });
  afterAll(() => mock.close());

  it("is captured: both runs, their tree, times to the microsecond, project and fields", async () => {
    const result = await runPython(SCRIPT, [`${mock.tracingUrl}/api/v1`]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe('202 {"message":"Runs batch ingested"}');
    expect(mock.traces()).toMatchObject([
      {
        id: "0198c0de-2700-7000-8000-0000000000a1",
        name: "pipeline",
        parent_run_id: null,
        inputs: { question: "2+2" },
        outputs: { answer: 4 },
        status: "success",
        start_time: "2026-01-15T09:00:00.123456+00:00",
        end_time: "2026-01-15T09:00:01.123456+00:00",
        session_name: "py-project",
        tags: ["py"],
        extra: { metadata: { lang: "python" } },
      },
      { id: "0198c0de-2700-7000-8000-0000000000a2", name: "add", run_type: "tool", parent_run_id: "0198c0de-2700-7000-8000-0000000000a1", inputs: { a: 2, b: 2 }, outputs: { output: 4 }, error: null },
    ]);
  });
});
