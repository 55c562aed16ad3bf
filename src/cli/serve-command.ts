import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { startMockServer, ListenError } from "../server.js";
import { LoadError } from "../core/load-error.js";
import { BUNDLED_SCENARIOS, type LifecycleMode } from "../options.js";
import { parseDuration } from "../core/duration.js";
import { serveOptions } from "./shared-options.js";

/** What express's body parser reads as a size: bytes, or a number with b, kb, mb or gb. */
const SIZE = /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb)?\s*$/i;

type ServeArgs = {
  port: number;
  host: string;
  seed?: string;
  fixtures?: string[];
  scenarios?: string[];
  "api-key"?: string;
  "admin-token"?: string;
  "tracing-port"?: number;
  lifecycle: string;
  "lifecycle-step": string;
  "heartbeat-ms": number;
  "body-limit": string;
  "allowed-host"?: string[];
  "cors-origin"?: string[];
  "allow-outbound-host"?: string[];
  "show-secrets": boolean;
  "headers-timeout-ms": number;
  "request-timeout-ms": number;
  "stream-stall-ms": number;
};

/** `agent-platform-mock [serve]`: start the mock and print `Listening on http://HOST:PORT`. */
export const serveCommand: CommandModule<object, ServeArgs> = {
  command: ["serve", "$0"],
  describe: "Serve the control plane, agent server and tracing service on one port",
  builder: (yargs: Argv) => yargs.options(serveOptions).check((argv) => {
    if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535) throw new Error(`--port must be a whole number from 0 to 65535; got ${argv.port}`);
    const tp = argv["tracing-port"];
    if (tp !== undefined && (!Number.isInteger(tp) || tp < 0 || tp > 65535)) throw new Error(`--tracing-port must be a whole number from 0 to 65535; got ${tp}`);
    // Each of these would otherwise be taken silently: NaN turns heartbeats off, an unreadable size
    // lifts the body limit, an empty seed means "no seed".
    const beat = argv["heartbeat-ms"];
    if (!Number.isInteger(beat) || beat < 0) throw new Error(`--heartbeat-ms must be a whole number of milliseconds ≥ 0 (0 turns heartbeats off); got ${beat}`);
    if (!SIZE.test(argv["body-limit"])) throw new Error(`--body-limit must be a size such as 512kb, 1mb or a number of bytes; got ${JSON.stringify(argv["body-limit"])}`);
    if (parseDuration(argv["lifecycle-step"]) === undefined) throw new Error(`--lifecycle-step must be a duration such as 500ms, 30s or 2m; got ${JSON.stringify(argv["lifecycle-step"])}`);
    if (argv.seed === "") throw new Error("--seed needs a value");
    for (const name of ["headers-timeout-ms", "request-timeout-ms", "stream-stall-ms"] as const) {
      const ms = argv[name];
      if (!Number.isInteger(ms) || ms <= 0) throw new Error(`--${name} must be a whole number of milliseconds > 0; got ${ms}`);
    }
    return true;
  }) as unknown as Argv<ServeArgs>,
  handler: async (argv: ArgumentsCamelCase<ServeArgs>) => {
    try {
      const mock = await startMockServer({
        port: argv.port,
        host: argv.host,
        seed: argv.seed,
        fixtures: argv.fixtures,
        scenarios: argv.scenarios ?? [BUNDLED_SCENARIOS],
        apiKey: argv["api-key"],
        adminToken: argv["admin-token"],
        tracingPort: argv["tracing-port"],
        lifecycle: argv.lifecycle as LifecycleMode,
        lifecycleStep: argv["lifecycle-step"],
        heartbeatMs: argv["heartbeat-ms"],
        bodyLimit: argv["body-limit"],
        allowedHosts: argv["allowed-host"],
        corsOrigins: argv["cors-origin"],
        allowOutbound: argv["allow-outbound-host"],
        journal: { showSecrets: argv["show-secrets"] },
        headersTimeoutMs: argv["headers-timeout-ms"],
        requestTimeoutMs: argv["request-timeout-ms"],
        streamStallMs: argv["stream-stall-ms"],
      });
      process.stdout.write(`Listening on ${mock.url}\n`);
      if (mock.tracingUrl !== mock.url) process.stdout.write(`Tracing service on ${mock.tracingUrl}\n`);
      const stop = () => {
        void mock.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    } catch (err) {
      if (err instanceof LoadError || err instanceof ListenError) {
        process.stderr.write(`agent-platform-mock: ${err.message}\n`);
        process.exit(err instanceof LoadError ? 2 : 1);
      }
      throw err;
    }
  },
};
