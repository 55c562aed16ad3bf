import type { InjectRequest, RequestScope } from "../http/route.js";
import { DISCOVERY_TIMEOUT_MS, type DiscoveryFetch } from "./mcp-discovery.js";
import { MAX_REDIRECTS, OutboundPolicy, OutboundRefused } from "./outbound-policy.js";

/** A request the control plane makes to a URL a client gave (MCP discovery, a token exchange). */
interface OutboundRequest {
  method: "GET" | "POST";
  body?: string;
  /** The body's type; JSON unless said. */
  contentType?: string;
  authorization?: string | undefined;
}

/** The fetch MCP discovery uses for one request: it follows redirects, each hop checked. */
export function discoveryFetch(scope: RequestScope, allowOutbound?: readonly string[]): DiscoveryFetch {
  return outboundFetch(scope, allowOutbound, DISCOVERY_TIMEOUT_MS, true);
}

/**
 * The fetch for a URL a client gave: global `fetch` with a timeout, except for URLs on the mock's own
 * origin that a network request would not bring back to this process — an app under a test harness
 * that injects requests without a socket, or a `publicUrl` that is a proxy or a made up host. Those go
 * to the mock's own routes in-process (`scope.inject`), through the same stages as over HTTP. When the
 * mock is listening on that origin, the request goes over real HTTP, under the host policy.
 */
export function outboundFetch(scope: RequestScope, allowOutbound: readonly string[] | undefined, timeoutMs: number, followRedirects: boolean): (url: string, init: OutboundRequest) => Promise<Response> {
  const own = scope.baseUrl;
  const policy = new OutboundPolicy([own, scope.tracingUrl], allowOutbound);
  return async (url, init) => {
    const target = new URL(url);
    if (target.origin === new URL(own).origin && !reachesThisSocket(scope.local, target)) {
      return injected(scope, { method: init.method, url: target.pathname + target.search, headers: { Host: target.host, ...headersOf(init) }, body: init.body });
    }
    return fetchWithin(policy, target, init, AbortSignal.timeout(timeoutMs), followRedirects);
  };
}

function headersOf(init: OutboundRequest): Record<string, string> {
  return {
    Accept: "application/json",
    ...(init.body === undefined ? {} : { "Content-Type": init.contentType ?? "application/json" }),
    ...(init.authorization ? { Authorization: init.authorization } : {}),
  };
}

/** A request to the mock's own routes in-process, answered as `fetch` answers. */
export async function injected(scope: RequestScope, request: InjectRequest): Promise<Response> {
  const answer = await scope.inject(request);
  const bodiless = answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(bodiless ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * A network request the policy allows. Redirects, when followed, are followed by hand so that each hop
 * is checked too (a permitted host must not be able to bounce the mock to a forbidden one); a 303
 * becomes a GET, as browsers do; one overall time limit covers every hop. Not followed, a redirect is
 * the answer.
 */
async function fetchWithin(policy: OutboundPolicy, start: URL, init: OutboundRequest, signal: AbortSignal, followRedirects: boolean): Promise<Response> {
  let url = start;
  let hopRequest = init;
  for (let hop = 0; ; hop++) {
    if (!policy.allows(url)) throw OutboundRefused.host(url);
    const response = await fetch(url, { method: hopRequest.method, body: hopRequest.body, redirect: "manual", headers: headersOf(hopRequest), signal });
    const location = response.headers.get("location");
    if (!followRedirects || response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url);
    if (response.status === 303) hopRequest = { ...hopRequest, method: "GET", body: undefined };
  }
}

/** Whether `url` names the local address and port this request arrived on. */
export function reachesThisSocket(socket: RequestScope["local"], url: URL): boolean {
  const { address: localAddress, port: localPort } = socket;
  if (!localAddress || !localPort) return false;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const local = localAddress.replace(/^::ffff:/, "");
  const loopback = (h: string) => h === "localhost" || h === "::1" || h.startsWith("127.");
  return port === localPort && (host === local || (loopback(host) && loopback(local)));
}
