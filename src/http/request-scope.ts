import type { Request, Response } from "express";
import type { MockContext } from "../context.js";
import type { StreamFault } from "./faults.js";
import { noteOn, type Exchange } from "./exchange.js";
import type { RequestScope } from "./route.js";

/**
 * The RequestScope of one HTTP request. What takes work to build — the origin and the URLs made from
 * it, the socket's address, an abort signal with its listener — is built when a handler first asks:
 * most routes never ask, and every request used to pay for all of it.
 */
export class HttpRequestScope implements RequestScope {
  readonly method: string;
  readonly url: string;
  readonly sentBody: unknown;
  readonly streamFault: StreamFault | undefined;
  private origin: string | undefined;
  private base: string | undefined;
  private controller: AbortController | undefined;

  private readonly req: Request;

  constructor(
    private readonly x: Exchange,
    private readonly ctx: MockContext,
    readonly mount: Record<string, string>,
    readonly inject: RequestScope["inject"],
  ) {
    this.req = x.req;
    this.method = x.req.method;
    this.url = x.req.originalUrl;
    this.sentBody = x.req.body;
    this.streamFault = x.streamFault;
  }

  get path(): string {
    return this.req.path;
  }

  /** Built once: a list page asks for it once per record. */
  get baseUrl(): string {
    return (this.base ??= this.ctx.baseUrl(this.requestOrigin()));
  }

  get tracingUrl(): string {
    return this.ctx.tracingUrl(this.requestOrigin());
  }

  get local(): RequestScope["local"] {
    return { address: this.req.socket.localAddress, port: this.req.socket.localPort };
  }

  get signal(): AbortSignal {
    this.controller ??= abortedWhenClientLeaves(this.x.res);
    return this.controller.signal;
  }

  /** A bound function: domain code hands it on by itself (`note: scope.note`). */
  readonly note = (facts: Record<string, unknown>): void => noteOn(this.x.res, facts);

  /** Where the request was sent: the mock's URLs point back there unless a public URL is configured. */
  private requestOrigin(): string {
    this.origin ??= `${this.req.protocol}://${this.req.get("host") ?? "127.0.0.1"}`;
    return this.origin;
  }
}

/**
 * Aborts when the client goes away before its answer is complete (also if it already has). The
 * response's "close" tells: the request's comes as soon as its body has been read.
 */
function abortedWhenClientLeaves(res: Response): AbortController {
  const controller = new AbortController();
  const gone = () => {
    if (!res.writableFinished) controller.abort();
  };
  if (res.closed) gone();
  else res.once("close", gone);
  return controller;
}
