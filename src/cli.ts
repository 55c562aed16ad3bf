#!/usr/bin/env node
import { yargsCli } from "./cli/yargs-cli.js";

// Every line is yargs's: help, version, the commands and the refusal of a bad line. The commands
// import what they run (the server, the checks, the recorder) only when they run, so `--help` loads
// the CLI's definitions and yargs alone.
await yargsCli(process.argv.slice(2)).parseAsync();
