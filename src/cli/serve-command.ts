import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { parseDuration } from "../core/duration.js";
import { serveOptions } from "./shared-options.js";
import { port, wholeNumber } from "./parse-arguments.js";
import type { LogLevel } from "./console-output.js";

/** What express's body parser reads as a size: bytes, or a number with b, kb, mb or gb. */
const SIZE = /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb)?\s*$/i;

export type ServeArgs = {
  port: string | number;
  host: string;
  seed?: string;
  clock: "auto" | "manual";
  fixtures?: string[];
  scenarios?: string[];
  faults?: string[];
  "api-key"?: string;
  "admin-token"?: string;
  "tracing-port"?: string | number;
  lifecycle: string;
  "lifecycle-step": string;
  "heartbeat-ms": string | number;
  "body-limit": string;
  "log-level": LogLevel;
  quiet: boolean;
  watch: boolean;
  "exit-with-parent"?: boolean;
  "allowed-host"?: string[];
  "cors-origin"?: string[];
  "allow-outbound-host"?: string[];
  "show-secrets": boolean;
  "headers-timeout-ms": number;
  "request-timeout-ms": number;
  "stream-stall-ms": number;
  "check-responses"?: boolean;
};

/** What yargs's types cannot say of serve's options; throws a message saying what is wrong. Run by yargs after parsing. */
export function checkServeArgs(argv: ServeArgs): true {
  port("port", argv.port);
  port("tracing-port", argv["tracing-port"]);
  // Each of these would otherwise be taken silently: NaN turns heartbeats off, an unreadable size
  // lifts the body limit, an empty seed means "no seed".
  wholeNumber("heartbeat-ms", argv["heartbeat-ms"], 0, 2 ** 31 - 1, "a whole number of milliseconds ≥ 0 (0 turns heartbeats off)");
  if (!SIZE.test(argv["body-limit"])) throw new Error(`--body-limit must be a size such as 512kb, 1mb or a number of bytes; got ${JSON.stringify(argv["body-limit"])}`);
  if (parseDuration(argv["lifecycle-step"]) === undefined) throw new Error(`--lifecycle-step must be a duration such as 500ms, 30s or 2m; got ${JSON.stringify(argv["lifecycle-step"])}`);
  if (argv.seed === "") throw new Error("--seed needs a value");
  // Without a seed the clock is wall time: a wait takes its real time whatever this says.
  if (argv.clock === "manual" && argv.seed === undefined) throw new Error("--clock manual needs --seed (without a seed the clock is wall time)");
  for (const name of ["headers-timeout-ms", "request-timeout-ms", "stream-stall-ms"] as const) {
    const ms = argv[name];
    if (!Number.isInteger(ms) || ms <= 0) throw new Error(`--${name} must be a whole number of milliseconds > 0; got ${ms}`);
  }
  return true;
}

/**
 * `agent-platform-mock [serve]`: start the mock and print `Listening on http://HOST:PORT`. The
 * server itself is imported only when the command runs, so `--help` and `--version` stay fast.
 */
export const serveCommand: CommandModule<object, ServeArgs> = {
  command: ["serve", "$0"],
  describe: "Serve the control plane, agent server and tracing service on one port",
  builder: (yargs: Argv) => yargs.options(serveOptions).check((argv) => checkServeArgs(argv as unknown as ServeArgs)) as unknown as Argv<ServeArgs>,
  handler: async (argv: ArgumentsCamelCase<ServeArgs>) => {
    const { serve } = await import("./serve.js");
    await serve(argv);
  },
};
