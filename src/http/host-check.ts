import type { IncomingMessage, ServerResponse } from "node:http";

/** Names that always reach this machine only (RFC 6761 makes every *.localhost loopback). */
const LOOPBACK = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost|127(\.\d{1,3}){3}|::1)$/i;

/**
 * The Host-header check against DNS rebinding (DESIGN §11): a web page whose domain the attacker
 * re-points at 127.0.0.1 reaches the mock with its own name in `Host`, so only names that cannot be
 * re-pointed from outside are accepted — loopback names and addresses, the address the mock is bound
 * to, the host names of its public URLs, and hosts allowed by `--allowed-host` (`*` turns the check off).
 */
export class HostCheck {
  private readonly names: Set<string>;
  private readonly any: boolean;
  /** The last Host header seen and the verdict: a client sends the same one on every request. */
  private last: { host: string; allowed: boolean } | undefined;

  constructor(allowed: readonly string[]) {
    this.any = allowed.includes("*");
    this.names = new Set(allowed.map(hostnameOf).filter((h) => h !== ""));
  }

  allows(hostHeader: string | undefined): boolean {
    // HTTP/1.0 clients may send no Host; a browser always sends one.
    if (this.any || hostHeader === undefined) return true;
    if (this.last?.host === hostHeader) return this.last.allowed;
    const name = hostnameOf(hostHeader);
    const allowed = LOOPBACK.test(name) || this.names.has(name);
    this.last = { host: hostHeader, allowed };
    return allowed;
  }

  /** Answers a refused request: 403 in the FastAPI shape, naming the flag that allows the host. */
  refuse(req: IncomingMessage, res: ServerResponse): void {
    const name = hostnameOf(req.headers.host ?? "");
    const body = JSON.stringify({ detail: `Host '${name}' is not allowed; start the mock with --allowed-host ${name} (or the allowedHosts option) to serve it` });
    req.resume();
    res.writeHead(403, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }).end(body);
  }
}

/** `Example.COM:8123` → `example.com`; `[::1]:80` → `::1`; a URL → its host name. */
export function hostnameOf(value: string): string {
  let text = value.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text)) text = URL.canParse(text) ? new URL(text).host : "";
  if (text.startsWith("[")) return text.slice(1, text.indexOf("]") > 0 ? text.indexOf("]") : undefined);
  const colons = text.split(":").length - 1;
  // One colon: host:port. More: a bare IPv6 address. A name's trailing dot (the root) is the same host.
  return (colons === 1 ? (text.split(":")[0] as string) : text).replace(/\.$/, "");
}
