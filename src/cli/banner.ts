import { relative } from "node:path";
import type { MockServer } from "../server.js";
import { BUNDLED_FIXTURES } from "../options.js";

/** Lists this many scenario names, then "and N more". */
const NAMES_SHOWN = 12;

/**
 * What the CLI prints after `Listening on …`: what was loaded, how it runs, where each surface is.
 * Every URL and path it names answers a GET with 200 (without --api-key and --admin-token), so each
 * can be opened as printed; the surfaces whose routes are POSTs are named, not linked
 * (docs/decisions/cli-console.md).
 */
export function banner(mock: MockServer, how: { watch: boolean; exitWithParent: boolean; colour: boolean }): string {
  const s = mock.control.summary();
  const clock = mock.control.clock.state();
  const dim = how.colour ? (t: string) => `\x1b[2m${t}\x1b[0m` : (t: string) => t;
  const lines = [
    `  control plane   ${mock.url}/v2/deployments  ${dim("(also /v2/auth/providers)")}`,
    `  agent server    ${mock.url}/info  ${dim("(threads, runs, assistants, store: listed at /docs)")}`,
    `  tracing         ${mock.tracingUrl}/api/v1/info`,
    `  mock admin      ${mock.url}/_mock/openapi.json  ${dim("(feedback, requests, runs, scenarios, faults, clock, reset)")}`,
    `  inspector       ${mock.inspectorUrl}`,
    `  OpenAPI         ${mock.url}/openapi.json`,
  ];
  const bundled = s.fixtures.files.length > 0 && s.fixtures.files.every((f) => f.startsWith(BUNDLED_FIXTURES));
  const files = bundled ? `bundled fixtures/ (${s.fixtures.files.length} files)` : s.fixtures.files.map((f) => relative(process.cwd(), f) || f).join(", ");
  lines.push(
    s.fixtures.files.length
      ? `Fixtures   ${files}: ${s.fixtures.deployments} deployments, ${s.fixtures.oauthProviders} OAuth providers, ${s.fixtures.integrations} integrations`
      : "Fixtures   none",
  );
  const names = s.scenarios.slice(0, NAMES_SHOWN).join(", ") + (s.scenarios.length > NAMES_SHOWN ? `, and ${s.scenarios.length - NAMES_SHOWN} more` : "");
  lines.push(`Scenarios  ${s.scenarios.length}${s.scenarios.length ? `: ${names}` : " (every run will be refused: load some with --scenarios or POST /_mock/scenarios)"}`);
  lines.push(`Seed       ${s.seed ?? "none (random ids; pass --seed for repeatable runs)"}`);
  lines.push(`Clock      ${clockLine(clock.mode, clock.auto_advance)}; lifecycle ${s.lifecycle}`);
  if (how.watch) lines.push("Watching   fixture and scenario files; a change reloads them");
  lines.push(dim(`Stop with Ctrl+C (or SIGTERM)${how.exitWithParent ? "; exits by itself when its parent process ends" : ""}.`));
  return lines.join("\n");
}

/** How the clock moves, as the banner says it (--clock). */
function clockLine(mode: "fixed" | "real", autoAdvance: boolean): string {
  if (mode === "real") return "real (wall clock)";
  return autoAdvance ? "fixed (seeded): a wait jumps it ahead by itself" : "fixed (seeded), manual: a wait lasts until the clock is moved (POST /_mock/clock)";
}
