import type { RequestScope } from "../http/route.js";
import { DISCOVERY_TIMEOUT_MS, type DiscoveryFetch } from "./mcp-discovery.js";
import type { McpFixtureServers } from "./mcp-fixture-servers.js";

/**
 * The fetch MCP discovery uses for one request: global `fetch` with a timeout, except for URLs on
 * the mock's own origin that a network request would not bring back to this process — an app under
 * a test harness that injects requests without a socket, or a `publicUrl` that is a proxy or a made
 * up host. Those are answered in-process by the fixture MCP servers, exactly as the mounted routes
 * would answer them. When the mock is listening on that origin, discovery goes over real HTTP.
 */
export function discoveryFetch(scope: RequestScope, servers: McpFixtureServers): DiscoveryFetch {
  const own = scope.baseUrl;
  return async (url, init) => {
    const target = new URL(url);
    if (target.origin === new URL(own).origin && !reachesThisSocket(scope.local, target)) {
      const answer = servers.respond(own, init.method, target, init.body === undefined ? undefined : JSON.parse(init.body));
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: { "Content-Type": "application/json", ...answer.headers },
      });
    }
    return fetch(url, {
      method: init.method,
      body: init.body,
      headers: { Accept: "application/json", ...(init.body === undefined ? {} : { "Content-Type": "application/json" }) },
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
  };
}

/** Whether `url` names the local address and port this request arrived on. */
function reachesThisSocket(socket: RequestScope["local"], url: URL): boolean {
  const { address: localAddress, port: localPort } = socket;
  if (!localAddress || !localPort) return false;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const local = localAddress.replace(/^::ffff:/, "");
  const loopback = (h: string) => h === "localhost" || h === "::1" || h.startsWith("127.");
  return port === localPort && (host === local || (loopback(host) && loopback(local)));
}
