import { sep } from "node:path";
import type { ScenarioInput } from "./agent-server/index.js";
import type { FaultRuleInput } from "./http/faults.js";
import type { FixtureDocument } from "./fixture-types.js";
import { packagePath } from "./core/code-root.js";

export type { FixtureDocument };
import type { RequestLogEntry } from "./http/request-log.js";

export type LifecycleMode = "immediate" | "timed" | "manual";

/** Options of `createApp()` and `startMockServer()`; the CLI flags map onto them one to one. */
export interface MockOptions {
  /** One seed drives every random choice and fixes the clock's start; omit for random ids and wall time. */
  seed?: number | string;
  /**
   * Fixture files or folders (JSON). Default: the bundled `fixtures/`. `false` starts empty.
   * Fixture objects can be given directly, too.
   */
  fixtures?: string | readonly (string | FixtureDocument)[] | FixtureDocument | false;
  /** Scenario files or folders (JSON or YAML), or scenario objects. Default: none for the library, the bundled `scenarios/` for the CLI. */
  scenarios?: readonly (string | ScenarioInput)[];
  /** Require this value in `X-Api-Key` (control plane, agent server and tracing API; never on token URLs or /_mock). */
  apiKey?: string;
  /** Require `Authorization: Bearer <token>` on /_mock routes. */
  adminToken?: string;
  /** Deployment lifecycle pace (default "immediate"). */
  lifecycle?: LifecycleMode;
  /** Duration of one lifecycle step in "timed" mode (default "30s"). */
  lifecycleStep?: string;
  clock?: {
    /** ISO instant where a seeded clock starts (default 2026-01-15T09:00:00Z). */
    start?: string;
    /** Whether waits (stream delays) move a seeded clock forward by themselves (default true). */
    autoAdvance?: boolean;
  };
  /** Interval of `: heartbeat` comments on idle streams (default 5000 ms of mock time). */
  heartbeatMs?: number;
  /**
   * Wall-clock ms a run stream may stay unread (the client's socket buffer full) before it is dropped
   * like a disconnect (default 30000); a JSON answer the socket could not take whole is dropped once
   * it has waited as long. Heartbeats are not written while a client is behind.
   */
  streamStallMs?: number;
  /**
   * Browser origins allowed to call the mock cross-origin, e.g. `["http://localhost:5173"]`. Unset: the
   * agent server and the token URLs answer any origin with `Access-Control-Allow-Origin: *` (no
   * credentials) and the admin API (`/_mock`) answers no other origin. Set: those routes answer
   * exactly these origins (with credentials), the admin API included; `"*"` allows every origin.
   * Either way, a state change to a service is taken only without `Origin` or from a loopback
   * origin, the mock's own or one of these (docs/security.md).
   */
  corsOrigins?: readonly string[];
  /**
   * Hosts MCP discovery may fetch besides loopback and the mock's own origins (the fixture MCP
   * servers), e.g. `["mcp.example.com"]`; `"*"` allows any. Redirects are followed only within them.
   */
  allowOutbound?: readonly string[];
  /** Largest accepted request body (default "1mb"). */
  bodyLimit?: string;
  /**
   * The request journal: entries kept (default 1000), body bytes kept per entry (default 65536), and
   * `showSecrets` to keep X-Api-Key, Authorization, Cookie and `client_secret` in clear (default: redacted).
   */
  journal?: { maxEntries?: number; maxBodyBytes?: number; showSecrets?: boolean };
  /**
   * The mock's public origin, used in URLs it hands out (deployment `custom_url`, feedback URLs).
   * `startMockServer` sets it to the bound address; with `createApp` alone it defaults to the
   * request's own origin.
   */
  publicUrl?: string;
  /** Public origin of the tracing service when it runs on its own port. */
  tracingUrl?: string;
  /**
   * Check every answer against what its route declares — JSON bodies (errors included) against the
   * schema of their status, stream events against the schemas of their payloads — and report a
   * mismatch: a console warning and `response_mismatches` in the request's journal entry note
   * (`GET /_mock/requests`). Answers go out unchanged. Default: off; on when the environment sets
   * `AGENT_PLATFORM_MOCK_CHECK_RESPONSES=1`, which the project's own test suite does (there a
   * mismatch fails the test instead of being warned about).
   */
  checkResponses?: boolean;
  /** Fault rules in force from the start (DESIGN §8): files (JSON or YAML, one rule or a list) or rule objects. */
  faults?: readonly (string | FaultRuleInput)[];
  /** Called while a long start-up task (fixture generation) runs; start-up is synchronous. */
  onProgress?: (progress: { task: string; done: number; total: number }) => void;
  /** Called once per finished request (the CLI's request log). */
  onRequest?: (entry: RequestLogEntry) => void;
}

export const BUNDLED_FIXTURES = packagePath("fixtures") + sep;
export const BUNDLED_SCENARIOS = packagePath("scenarios") + sep;
