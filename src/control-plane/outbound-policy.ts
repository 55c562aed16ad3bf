import { hostnameOf } from "../http/host-check.js";

/** Names and addresses that stay on this machine. */
const LOOPBACK = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost|127(\.\d{1,3}){3}|::1)$/i;

/** Redirects discovery follows at most, each checked against the policy. */
export const MAX_REDIRECTS = 5;

/**
 * Which hosts the mock's own outbound requests (MCP discovery) may reach (DESIGN §11). By default
 * loopback and the mock's own origins (where the fixture MCP servers live); other hosts only when
 * allowed by `allowOutbound` / `--allow-outbound-host` (`"*"` allows any). A test double that could
 * be told to fetch any URL would otherwise be a way into the network it runs in (cloud metadata
 * addresses, internal services).
 */
export class OutboundPolicy {
  private readonly names: Set<string>;
  private readonly any: boolean;

  constructor(ownOrigins: readonly string[], allowed: readonly string[] = []) {
    this.any = allowed.includes("*");
    this.names = new Set([...ownOrigins, ...allowed].map(hostnameOf).filter((h) => h !== ""));
  }

  allows(url: URL): boolean {
    const name = hostnameOf(url.host);
    return this.any || LOOPBACK.test(name) || this.names.has(name);
  }
}

/** Thrown instead of fetching a URL the policy does not allow; its message is safe to show. */
export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }

  static host(url: URL): OutboundRefused {
    const name = hostnameOf(url.host);
    return new OutboundRefused(`the host ${name} is not allowed for outbound requests (allow it with --allow-outbound-host ${name})`);
  }
}
