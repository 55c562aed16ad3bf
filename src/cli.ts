#!/usr/bin/env node
import { plainServeArgs } from "./cli/plain-serve-args.js";

// A plain `serve` line (what tools, scripts and `npm start` write) is read without loading yargs, a
// fifth of the CLI's time to its first answer; every other line — help, version, the other commands,
// a line to refuse — is yargs's, which answers as it always has.
const args = process.argv.slice(2);
const plain = plainServeArgs(args);
if (plain) {
  const { serve } = await import("./cli/serve.js");
  await serve(plain);
} else {
  const { yargsCli } = await import("./cli/yargs-cli.js");
  await yargsCli(args).parseAsync();
}
