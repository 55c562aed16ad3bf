import type { MockContext } from "../context.js";
import { deepMerge, isPlainObject, omit } from "../core/json.js";
import type { FixtureEntry, FixtureSet } from "../store/fixtures.js";
import { RecordGenerator } from "../store/generate.js";
import { SeededValues } from "../store/seeded-values.js";
import { INTEGRATION_REF, REPOSITORY_REF, type Integration, type IntegrationKind, type Repository, type StoredIntegration } from "./integrations-store.js";

/** Keys an integration fixture carries besides the Integration fields. */
const FIXTURE_ONLY = ["kind", "repositories"];
const KINDS: IntegrationKind[] = ["github", "forge"];

/**
 * Seeds the `integrations` fixture section: each entry is an Integration plus `kind` ("github",
 * the default, or "forge") and its `repositories`. Left-out fields are generated from the schemas
 * and made coherent: a repository's `host_integration_id` is its integration's id, its owner the
 * integration's account name and its url `https://github.com/<owner>/<name>`.
 */
export function seedIntegrations(ctx: MockContext, fixtures: FixtureSet): void {
  const store = ctx.data.integrations;
  const key = ctx.random.seedKey !== undefined ? fixtures.textKey : undefined;
  const kept = key === undefined ? undefined : seededIntegrations.get(ctx.random.seedKey as string, key);
  if (kept) {
    for (const [id, record] of kept.records) store.set(id, record);
    // What completing them did to the mock's own generator: generate() leaves its faker seeded for the last label.
    if (kept.lastLabel !== undefined) ctx.random.seedFakerFor(kept.lastLabel);
    return;
  }
  const entries = fixtures.entries("integrations");
  const problemsBefore = fixtures.problems.length;
  const records: [string, StoredIntegration][] = [];
  let lastLabel: string | undefined;
  const generator = new RecordGenerator(ctx.random);
  const seen = new Map<string, string>();

  for (const entry of entries) {
    const label = `integrations/${entry.index}`;
    const integration = deepMerge(generator.generate(INTEGRATION_REF, label), omit(entry.value, FIXTURE_ONLY)) as unknown as Integration;
    lastLabel = label;
    const kind = entry.value.kind ?? "github";
    if (!KINDS.includes(kind as IntegrationKind)) fixtures.problem(entry, `must be one of "github", "forge"; got ${JSON.stringify(kind)}`, "/kind");
    // Repositories take their integration's id, so they are checked once that is valid.
    if (!fixtures.check(entry, INTEGRATION_REF, integration)) continue;
    const repositories = seedRepositories(generator, fixtures, entry, integration, label);
    if (!repositories) continue;
    lastLabel = repositories.lastLabel ?? lastLabel;

    const id = integration.id.toLowerCase();
    const first = seen.get(id);
    if (first) {
      fixtures.problem(entry, `duplicate integration id ${JSON.stringify(integration.id)} (first at ${first})`, "/id");
      continue;
    }
    seen.set(id, `${entry.file}#${entry.pointer}`);
    const record: StoredIntegration = { integration, kind: kind as IntegrationKind, repositories: repositories.list };
    store.set(id, record);
    records.push([id, record]);
  }
  // A section with problems stops the start: only a good one is worth keeping.
  if (key !== undefined && fixtures.problems.length === problemsBefore) seededIntegrations.keep(ctx.random.seedKey as string, key, { records, lastLabel });
}

/**
 * A seeded mock's integrations, kept for the next mock of the process built from the same seed and
 * fixture files' texts (FixtureSet.textKey; not kept for objects passed in): completing and checking
 * them and their repositories is a tenth of a later start otherwise.
 */
interface KeptIntegrations {
  records: [string, StoredIntegration][];
  /** The label of the last record generated. */
  lastLabel: string | undefined;
}
const seededIntegrations = new SeededValues<KeptIntegrations>(100);

/** The entry's repositories completed and checked, or undefined when any is wrong (problems reported). */
function seedRepositories(
  generator: RecordGenerator,
  fixtures: FixtureSet,
  entry: FixtureEntry,
  integration: Integration,
  label: string,
): { list: Repository[]; lastLabel: string | undefined } | undefined {
  const list = entry.value.repositories ?? [];
  if (!Array.isArray(list)) {
    fixtures.problem(entry, `must be array; got ${JSON.stringify(list)?.slice(0, 80)}`, "/repositories");
    return undefined;
  }
  const out: Repository[] = [];
  let lastLabel: string | undefined;
  let ok = true;
  list.forEach((given: unknown, i) => {
    const at = { file: entry.file, pointer: `${entry.pointer}/repositories/${i}` };
    if (!isPlainObject(given)) {
      fixtures.problem(at, `must be object; got ${JSON.stringify(given)?.slice(0, 80)}`);
      ok = false;
      return;
    }
    lastLabel = `${label}/repositories/${i}`;
    const generated = generator.generate(REPOSITORY_REF, lastLabel);
    const owner = typeof given.owner === "string" ? given.owner : integration.name;
    const name = typeof given.name === "string" ? given.name : String(generated.name);
    const repository = deepMerge(
      { ...generated, host_integration_id: integration.id, owner, name, url: `https://github.com/${owner}/${name}` },
      given,
    ) as unknown as Repository;
    if (!fixtures.check(at, REPOSITORY_REF, repository)) ok = false;
    else if (repository.host_integration_id.toLowerCase() !== integration.id.toLowerCase()) {
      fixtures.problem(at, `must be the integration's id ${JSON.stringify(integration.id)} (or left out); got ${JSON.stringify(repository.host_integration_id)}`, "/host_integration_id");
      ok = false;
    } else out.push(repository);
  });
  return ok ? { list: out, lastLabel } : undefined;
}
