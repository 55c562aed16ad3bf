import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { RequestGate } from "../../src/http/request-gate.js";

const fakeReq = (url: string) => ({ url }) as IncomingMessage;
function fakeRes() {
  const res = { status: 0, body: "", writeHead: (status: number) => ((res.status = status), res), end: (body: string) => void (res.body = body) };
  return res;
}

describe("RequestGate: requests that reach a socket before the app exists", () => {
  it("are held and handed on in arrival order once the gate opens; later ones go straight through", () => {
    const gate = new RequestGate();
    const seen: string[] = [];
    gate.handle(fakeReq("/a"), fakeRes() as unknown as ServerResponse);
    gate.handle(fakeReq("/b"), fakeRes() as unknown as ServerResponse);
    expect(seen).toEqual([]);
    gate.open((req) => void seen.push(req.url as string));
    expect(seen).toEqual(["/a", "/b"]);
    gate.handle(fakeReq("/c"), fakeRes() as unknown as ServerResponse);
    expect(seen).toEqual(["/a", "/b", "/c"]);
  });

  it("are answered 503 when start-up fails", () => {
    const gate = new RequestGate();
    const res = fakeRes();
    gate.handle(fakeReq("/a"), res as unknown as ServerResponse);
    gate.refuse();
    expect(res).toMatchObject({ status: 503, body: '{"detail":"Service Unavailable"}' });
  });
});
