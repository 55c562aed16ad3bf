import type { Argv, CommandModule } from "yargs";
import type { LoadProblem } from "../core/load-error.js";
// The checks are imported when the command runs, so that --help is fast; they do not load the server.
const load = async () => ({
  ...(await import("../core/load-error.js")),
  ...(await import("../core/read-documents.js")),
  ...(await import("../fixture-check.js")),
  ...(await import("../agent-server/scenario-validation.js")),
});

/**
 * `agent-platform-mock validate <files…>`: checks fixture and scenario files and names each problem.
 * A file is taken as a scenario file when its `$schema` names the scenario schema, or it is YAML, or
 * it has a `name` and `turns`/`events`/`match` at the top (or is a list of such); otherwise as a
 * fixture file. Every problem of every file is reported in one run.
 */
export const validateCommand: CommandModule<object, { files: string[] }> = {
  command: "validate <files..>",
  describe: "Check fixture and scenario files without starting the mock",
  builder: (yargs: Argv) => yargs.positional("files", { type: "string", array: true, demandOption: true, describe: "Files or folders" }) as unknown as Argv<{ files: string[] }>,
  handler: async (argv) => {
    try {
      await check(argv.files);
    } catch (err) {
      // A bug or an unreadable input, not a problem in a file: one line, never a stack trace.
      process.stderr.write(`validate failed: ${(err as Error)?.message ?? String(err)}\n`);
      process.exit(2);
    }
  },
};

/** Reads and checks the files; exits 1 naming every problem. */
async function check(files: string[]): Promise<void> {
  const { formatProblem, readDocuments, checkScenarioDocuments, checkFixtureFiles } = await load();
  const problems: LoadProblem[] = [];
  const docs = readDocuments(files, problems, true);
  const scenarioDocs = docs.filter(looksLikeScenarios);
  const fixtureFiles = docs.filter((d) => !scenarioDocs.includes(d)).map((d) => d.file);
  const fixtures = fixtureFiles.length ? checkFixtureFiles(fixtureFiles) : undefined;
  if (fixtures) problems.push(...fixtures.problems);
  // A scenario's scripted values are checked with its graph's reducers when the fixtures given describe it.
  const checked = checkScenarioDocuments(scenarioDocs, fixtures?.graphs);
  problems.push(...checked.problems);
  // Warnings do not fail the check: the file loads as it is.
  const { warnings } = checked;
  if (warnings.length) process.stderr.write(`${warnings.length} warning${warnings.length === 1 ? "" : "s"}:\n${warnings.map(formatProblem).join("\n")}\n`);
  if (problems.length) {
    process.stderr.write(`${problems.length} problem${problems.length === 1 ? "" : "s"} found:\n${problems.map(formatProblem).join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write(`OK: ${docs.length} file${docs.length === 1 ? "" : "s"} valid (${fixtureFiles.length} fixture, ${scenarioDocs.length} scenario)\n`);
}

function looksLikeScenarios(doc: { file: string; content: unknown }): boolean {
  const items = Array.isArray(doc.content) ? doc.content : [doc.content];
  // A `$schema` naming one of the published schemas says what the file is.
  const declared = items.map((item) => (item !== null && typeof item === "object" && "$schema" in item ? String(item.$schema) : "")).find(Boolean);
  if (declared && /scenario[^/]*\.json$/.test(declared)) return true;
  if (declared && /fixture[^/]*\.json$/.test(declared)) return false;
  if (/\.ya?ml$/i.test(doc.file)) return true;
  return items.some((item) => item !== null && typeof item === "object" && "name" in item && ("turns" in item || "events" in item || "match" in item));
}
