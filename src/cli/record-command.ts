import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { port } from "./parse-arguments.js";
import { serveOptions } from "./shared-options.js";

export type RecordArgs = {
  target: string;
  "api-key"?: string;
  out: string;
  port: string | number;
  host: string;
  format: "yaml" | "json";
  "allowed-host"?: string[];
  "cors-origin"?: string[];
  "exit-with-parent"?: boolean;
};

export const recordOptions = {
  target: { type: "string", demandOption: true, describe: "URL of the Agent Server to record (a deployment's URL)" },
  "api-key": { type: "string", describe: "X-Api-Key sent to the target when the client sends none; never written to the files" },
  out: { type: "string", demandOption: true, describe: "Folder the scenario files are written to" },
  port: { type: "string", default: 8124, describe: "Port the proxy listens on (0 picks a free port)" },
  host: { type: "string", default: "127.0.0.1", describe: "Interface the proxy binds" },
  format: { choices: ["yaml", "json"], default: "yaml", describe: "Scenario file format" },
  "allowed-host": { type: "array", string: true, describe: "Also accept this Host header (besides loopback names and the bound address); repeatable; * accepts any" },
  "cors-origin": { type: "array", string: true, describe: "Browser origin allowed besides loopback ones; repeatable; * allows any" },
  "exit-with-parent": { ...serveOptions["exit-with-parent"], describe: "Exit when the process that started the recorder (npm, npx, a script) goes away [default: on under npx]" },
} as const;

/**
 * `agent-platform-mock record --target <url> --out <dir>`: a recording proxy in front of a real Agent
 * Server (docs/recording.md). The proxy is imported only when the command runs, so `--help` stays fast.
 */
export const recordCommand: CommandModule<object, RecordArgs> = {
  command: "record",
  describe: "Proxy a real Agent Server and write each run it forwards as a scenario file",
  builder: (yargs: Argv) =>
    yargs.options(recordOptions).check((argv) => {
      port("port", argv.port);
      let url: URL;
      try {
        url = new URL(String(argv.target));
      } catch {
        throw new Error(`--target must be an http(s) URL; got ${JSON.stringify(argv.target)}`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`--target must be an http(s) URL; got ${JSON.stringify(argv.target)}`);
      if (url.username || url.password) throw new Error("--target must not carry credentials; pass the key with --api-key");
      if (argv.out === "") throw new Error("--out needs a folder");
      return true;
    }) as unknown as Argv<RecordArgs>,
  handler: async (argv: ArgumentsCamelCase<RecordArgs>) => {
    const { startRecorder } = await import("../record/proxy.js");
    const { exitWithParent, exitsWithParent } = await import("./exit-with-parent.js");
    const recorder = await startRecorder({
      target: argv.target,
      apiKey: argv["api-key"],
      out: argv.out,
      port: port("port", argv.port) ?? 8124,
      host: argv.host,
      format: argv.format,
      allowedHosts: argv["allowed-host"],
      corsOrigins: argv["cors-origin"],
      onFile: (file) => process.stdout.write(`Recorded ${file}\n`),
      onError: (err) => process.stderr.write(`record: ${err.message}\n`),
    });
    process.stdout.write(`Listening on ${recorder.url}\nRecording ${new URL(argv.target).origin} into ${argv.out}\n`);
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void recorder.close().then(() => process.exit(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    process.once("SIGHUP", stop);
    // As serve does: killing the npx that started the recorder must not leave it holding its port.
    if (exitsWithParent(argv["exit-with-parent"])) exitWithParent(stop);
  },
};
