#!/usr/bin/env node
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { serveCommand } from "./cli/serve-command.js";
import { validateCommand } from "./cli/validate-command.js";
import { packageVersion } from "./cli/package-version.js";

await yargs(hideBin(process.argv))
  .scriptName("agent-platform-mock")
  .command(serveCommand)
  .command(validateCommand)
  .strict()
  .help()
  .alias("help", "h")
  .version(packageVersion())
  // Bad flags and failed checks: one line saying what is wrong, exit code 2, no stack trace.
  .fail((message, err) => {
    process.stderr.write(`agent-platform-mock: ${message ?? err?.message}\nRun agent-platform-mock --help for the options.\n`);
    process.exit(2);
  })
  .parseAsync();
