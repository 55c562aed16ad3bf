import type { IncomingMessage, ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Holds requests that arrive before the handler exists. A server must listen before the app can be
 * built (the app's URLs need the bound port), so a request can reach a socket in between — with a
 * second (tracing) port that gap spans an event-loop turn. Held requests are handed on in arrival
 * order once `open()` is called; `refuse()` answers them 503 when start-up fails.
 */
export class RequestGate {
  private handler: Handler | undefined;
  private held: [IncomingMessage, ServerResponse][] = [];

  readonly handle: Handler = (req, res) => {
    if (this.handler) this.handler(req, res);
    else this.held.push([req, res]);
  };

  open(handler: Handler): void {
    this.handler = handler;
    for (const [req, res] of this.held.splice(0)) handler(req, res);
  }

  refuse(): void {
    for (const [, res] of this.held.splice(0)) res.writeHead(503, { "Content-Type": "application/json" }).end('{"detail":"Service Unavailable"}');
  }
}
