import type { InjectRequest, RequestScope } from "../http/route.js";
import { DISCOVERY_TIMEOUT_MS, type DiscoveryFetch } from "./mcp-discovery.js";
import { MAX_REDIRECTS, OutboundPolicy, OutboundRefused } from "./outbound-policy.js";

/**
 * The fetch MCP discovery uses for one request: global `fetch` with a timeout, except for URLs on
 * the mock's own origin that a network request would not bring back to this process — an app under
 * a test harness that injects requests without a socket, or a `publicUrl` that is a proxy or a made
 * up host. Those go to the mock's own routes in-process (`scope.inject`), through the same stages as
 * over HTTP. When the mock is listening on that origin, discovery goes over real HTTP.
 */
export function discoveryFetch(scope: RequestScope, allowOutbound?: readonly string[]): DiscoveryFetch {
  const own = scope.baseUrl;
  const policy = new OutboundPolicy([own, scope.tracingUrl], allowOutbound);
  return async (url, init) => {
    const target = new URL(url);
    if (target.origin === new URL(own).origin && !reachesThisSocket(scope.local, target)) {
      const headers: Record<string, string> = { Host: target.host, Accept: "application/json" };
      if (init.body !== undefined) headers["Content-Type"] = "application/json";
      return injected(scope, { method: init.method, url: target.pathname + target.search, headers, body: init.body });
    }
    return fetchWithin(policy, target, init);
  };
}

/** A request to the mock's own routes in-process, answered as `fetch` answers. */
export async function injected(scope: RequestScope, request: InjectRequest): Promise<Response> {
  const answer = await scope.inject(request);
  const bodiless = answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(bodiless ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * A network request the policy allows, following redirects by hand so that each hop is checked too
 * (a permitted host must not be able to bounce the mock to a forbidden one). A 303 becomes a GET, as
 * browsers do; one overall time limit covers every hop.
 */
async function fetchWithin(policy: OutboundPolicy, start: URL, init: { method: "GET" | "POST"; body?: string }): Promise<Response> {
  const signal = AbortSignal.timeout(DISCOVERY_TIMEOUT_MS);
  let url = start;
  let { method, body } = init;
  for (let hop = 0; ; hop++) {
    if (!policy.allows(url)) throw OutboundRefused.host(url);
    const response = await fetch(url, {
      method,
      body,
      redirect: "manual",
      headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      signal,
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url);
    if (response.status === 303) [method, body] = ["GET", undefined];
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
