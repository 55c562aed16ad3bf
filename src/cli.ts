#!/usr/bin/env node
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { serveCommand } from "./cli/serve-command.js";
import { validateCommand } from "./cli/validate-command.js";
import { recordCommand, recordOptions } from "./cli/record-command.js";
import { withUnknownArgumentHints } from "./cli/unknown-argument-hint.js";
import { serveOptions } from "./cli/shared-options.js";
import { packageVersion } from "./cli/package-version.js";

await yargs(hideBin(process.argv))
  .scriptName("agent-platform-mock")
  // yargs's own words (Options:, Show help…) in English as everything else the CLI prints, whatever
  // the machine's LANG: the mock's output is the same on every machine. (The bundled CLI carries no
  // yargs locale files: scripts/bundle.mjs.)
  .locale("en")
  .command(serveCommand)
  .command(validateCommand)
  .command(recordCommand)
  .strict()
  .help()
  .alias("help", "h")
  .version(packageVersion())
  // Bad flags and failed checks: one line saying what is wrong, exit code 2, no stack trace.
  .fail((message, err) => {
    const text = withUnknownArgumentHints(message ?? err?.message ?? "", ["serve", "validate", "record"], [...new Set([...Object.keys(serveOptions), ...Object.keys(recordOptions)]), "help", "version"]);
    process.stderr.write(`agent-platform-mock: ${text}\nRun agent-platform-mock --help for the options.\n`);
    process.exit(2);
  })
  .parseAsync();
