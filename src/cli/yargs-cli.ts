import yargs from "yargs";
import { serveCommand } from "./serve-command.js";
import { validateCommand } from "./validate-command.js";
import { recordCommand, recordOptions } from "./record-command.js";
import { withUnknownArgumentHints } from "./unknown-argument-hint.js";
import { serveOptions } from "./shared-options.js";
import { packageVersion } from "./package-version.js";

/** The CLI as yargs reads it: every command, `--help`, `--version` and the refusal of a bad line. */
export function yargsCli(args: string[]) {
  return yargs(args)
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
    });
}
