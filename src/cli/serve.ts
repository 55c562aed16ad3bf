import { startMockServer, ListenError, type MockServer } from "../server.js";
import { LoadError, formatProblem } from "../core/load-error.js";
import { BUNDLED_SCENARIOS, type LifecycleMode } from "../options.js";
import { ConsoleOutput } from "./console-output.js";
import { banner } from "./banner.js";
import { exitWithParent, exitsWithParent } from "./exit-with-parent.js";
import { watchFiles } from "./watch.js";
import { port, wholeNumber } from "./parse-arguments.js";
import type { ServeArgs } from "./serve-command.js";

/** Runs `serve` once its arguments are checked: start, banner, request log, watch, stop. */
export async function serve(argv: ServeArgs): Promise<void> {
  const out = new ConsoleOutput(argv.quiet ? "warn" : argv["log-level"]);
  // Started by `npm start` or `npx`, a SIGTERM to npm must not leave the mock behind.
  const withParent = exitsWithParent(argv["exit-with-parent"]);
  const progressShown = new Set<string>();
  let mock: MockServer;
  try {
    mock = await startMockServer({
      port: port("port", argv.port),
      host: argv.host,
      seed: argv.seed,
      clock: { autoAdvance: argv.clock !== "manual" },
      // `--no-fixtures` (yargs reads it as [false]): start without control-plane fixtures.
      fixtures: argv.fixtures?.some((f) => (f as unknown) === false) ? false : argv.fixtures,
      scenarios: argv.scenarios ?? [BUNDLED_SCENARIOS],
      faults: argv.faults,
      apiKey: argv["api-key"],
      adminToken: argv["admin-token"],
      tracingPort: port("tracing-port", argv["tracing-port"]),
      lifecycle: argv.lifecycle as LifecycleMode,
      lifecycleStep: argv["lifecycle-step"],
      heartbeatMs: wholeNumber("heartbeat-ms", argv["heartbeat-ms"], 0, 2 ** 31 - 1, ""),
      bodyLimit: argv["body-limit"],
      allowedHosts: argv["allowed-host"],
      corsOrigins: argv["cors-origin"],
      allowOutbound: argv["allow-outbound-host"],
      journal: { showSecrets: argv["show-secrets"] },
      headersTimeoutMs: argv["headers-timeout-ms"],
      requestTimeoutMs: argv["request-timeout-ms"],
      streamStallMs: argv["stream-stall-ms"],
      checkResponses: argv["check-responses"] || undefined,
      onRequest: (entry) => out.request(entry),
      // Start-up is synchronous: this runs inside it, so it writes at once (stderr: not for tools).
      onProgress: ({ task, done, total }) => {
        if (!out.enabled("info")) return;
        if (!progressShown.has(task)) process.stderr.write(`${task}: ${total.toLocaleString("en")} to make…\n`);
        progressShown.add(task);
        process.stderr.write(`  ${task}: ${done.toLocaleString("en")} / ${total.toLocaleString("en")}\n`);
      },
    });
  } catch (err) {
    if (err instanceof LoadError || err instanceof ListenError) {
      process.stderr.write(`agent-platform-mock: ${err.message}\n`);
      process.exit(err instanceof LoadError ? 2 : 1);
    }
    throw err;
  }
  // Tools wait for this line: always printed, whatever the log level.
  process.stdout.write(`Listening on ${mock.url}\n`);
  if (mock.tracingUrl !== mock.url) process.stdout.write(`Tracing service on ${mock.tracingUrl}\n`);
  out.info(banner(mock, { watch: argv.watch, exitWithParent: withParent, colour: out.colour }));

  let stopping = false;
  const stop = (code = 0) => {
    if (stopping) return;
    stopping = true;
    out.flush();
    void mock.close().then(() => process.exit(code));
  };
  process.once("SIGINT", () => stop());
  process.once("SIGTERM", () => stop());
  process.once("SIGHUP", () => stop());
  if (withParent) exitWithParent(() => stop());
  if (argv.watch) {
    const paths = [...(argv.fixtures ?? []), ...(argv.scenarios ?? [])].filter((p) => typeof p === "string");
    if (!paths.length) out.warn("--watch: nothing to watch (the bundled fixtures and scenarios do not change); pass --fixtures or --scenarios");
    else watchFiles(paths, async (changed) => {
      const before = mock.control.summary();
      try {
        await mock.reload();
      } catch (err) {
        if (!(err instanceof LoadError)) throw err;
        out.warn(`Changed: ${changed.join(", ")} — not reloaded, the previous files stay in use:\n${err.problems.map(formatProblem).join("\n")}`);
        return;
      }
      const after = mock.control.summary();
      const added = after.scenarios.filter((n) => !before.scenarios.includes(n));
      const removed = before.scenarios.filter((n) => !after.scenarios.includes(n));
      const parts = [`${after.scenarios.length} scenarios`];
      if (added.length) parts.push(`added ${added.join(", ")}`);
      if (removed.length) parts.push(`removed ${removed.join(", ")}`);
      parts.push(`${after.fixtures.deployments} deployments`);
      out.info(`Reloaded after a change to ${changed.join(", ")}: ${parts.join("; ")} (state starts over)`);
    });
  }
}
