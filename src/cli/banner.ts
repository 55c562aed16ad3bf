import { relative } from "node:path";
import type { MockServer } from "../server.js";
import { BUNDLED_FIXTURES } from "../options.js";

/** Lists this many scenario names, then "and N more". */
const NAMES_SHOWN = 12;

/** What the CLI prints after `Listening on …`: what was loaded, how it runs, where each surface is. */
export function banner(mock: MockServer, how: { watch: boolean; exitWithParent: boolean; colour: boolean }): string {
  const s = mock.control.summary();
  const dim = how.colour ? (t: string) => `\x1b[2m${t}\x1b[0m` : (t: string) => t;
  const served = new Set(mock.control.context.routes.list().map((r) => r.path));
  const lines = [
    `  control plane   ${mock.url}/v2/deployments  ${dim("(also /v2/auth/providers, /v1/integrations)")}`,
    `  agent server    ${mock.url}  ${dim("(/threads, /runs, /assistants, /info)")}`,
    `  tracing         ${mock.tracingUrl}/api/v1`,
    `  mock admin      ${mock.url}/_mock  ${dim("(feedback, requests, scenarios, clock, reset)")}`,
  ];
  lines.push(`  inspector       ${mock.inspectorUrl}`);
  if (served.has("/openapi.json")) lines.push(`  OpenAPI         ${mock.url}/openapi.json  ${dim("(/_mock/openapi.json: the admin API)")}`);
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
  lines.push(`Clock      ${s.clock}; lifecycle ${s.lifecycle}`);
  if (how.watch) lines.push("Watching   fixture and scenario files; a change reloads them");
  lines.push(dim(`Stop with Ctrl+C (or SIGTERM)${how.exitWithParent ? "; exits by itself when its parent process ends" : ""}.`));
  return lines.join("\n");
}
