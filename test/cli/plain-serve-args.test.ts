import { describe, expect, it } from "vitest";
import { plainServeArgs } from "../../src/cli/plain-serve-args.js";
import { yargsCli } from "../../src/cli/yargs-cli.js";
import { serveCommand } from "../../src/cli/serve-command.js";
import { serveOptions } from "../../src/cli/shared-options.js";

// The CLI reads a plain `serve` line without loading yargs (src/cli/plain-serve-args.ts): serve must
// get what yargs would have given it, and every other line must be left to yargs.

/** What yargs hands serve for a line it accepts, by the names serve reads (its camelCase twins, `_` and `$0` are yargs's own). */
async function byYargs(args: string[]): Promise<Record<string, unknown>> {
  let got: Record<string, unknown> = {};
  await yargsCli(args, { ...serveCommand, handler: (argv) => void (got = argv) }).parseAsync();
  return Object.fromEntries(Object.keys(serveOptions).filter((name) => got[name] !== undefined).map((name) => [name, got[name]]));
}

const PLAIN = [
  [],
  ["serve"],
  ["--port", "0", "--seed", "42"],
  ["serve", "--port=0", "--seed=42"],
  ["--seed", "a=b c", "--host=0.0.0.0", "--port", "65535"],
  ["--seed=x=y"],
  ["--fixtures", "a.json", "--scenarios", "s", "--fixtures=b", "--faults", "f.yaml", "--faults", "g.json"],
  ["--quiet", "--watch", "--port", "0", "--show-secrets"],
  ["--exit-with-parent"],
  ["serve", "--exit-with-parent", "--fixtures", "x"],
  ["--lifecycle", "timed", "--lifecycle-step", "2m", "--log-level=debug"],
  ["--headers-timeout-ms", "5000", "--request-timeout-ms=100", "--stream-stall-ms", "007"],
  ["--api-key", "k", "--admin-token", "t", "--tracing-port", "0", "--body-limit", "512kb", "--heartbeat-ms", "0"],
  ["--allowed-host", "example.test", "--cors-origin", "http://a.test", "--allow-outbound-host", "*", "--allowed-host", "*"],
];

const NOT_PLAIN = [
  ["--help"],
  ["-h"],
  ["--version"],
  ["serve", "--help"],
  ["validate", "fixtures"],
  ["record", "--target", "http://x"],
  ["serve", "serve"],
  ["--no-fixtures"],
  ["--no-exit-with-parent"],
  ["--apiKey", "k"],
  ["-p", "0"],
  ["--Port", "0"],
  ["--bogus"],
  ["--lifecycle-stp", "1s"],
  ["x.json"],
  ["--port", "0", "extra"],
  ["--", "--port", "0"],
  ["--seed"],
  ["--seed="],
  ["--seed", "-1"],
  ["--seed", "--port", "0"],
  ["--seed", '"quoted"'],
  ["--seed", "'quoted'"],
  ["--port", "1", "--port", "2"],
  ["--quiet", "--quiet"],
  ["--quiet", "true"],
  ["--quiet=false"],
  ["--fixtures", "a", "b"],
  ["--fixtures=a", "b"],
  ["--lifecycle", "bogus"],
  ["--log-level", "5"],
  ["--headers-timeout-ms", "1e3"],
  ["--headers-timeout-ms", "0"],
  ["--headers-timeout-ms", " 10"],
  ["--heartbeat-ms", "abc"],
  ["--port", "99999"],
  ["--port", "abc"],
  ["--body-limit", "lots"],
  ["--lifecycle-step", "soon"],
  ["--__proto__", "x"],
];

describe("a plain serve line read without yargs", () => {
  it.each(PLAIN)("gives serve what yargs gives it: %j", async (...args) => {
    const plain = plainServeArgs(args);
    expect(plain).toBeDefined();
    expect(plain).toStrictEqual(await byYargs(args));
  });

  it.each(NOT_PLAIN)("is not taken for another line, which yargs reads: %j", (...args) => {
    expect(plainServeArgs(args)).toBeUndefined();
  });
});
