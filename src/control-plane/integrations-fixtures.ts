import type { MockContext } from "../context.js";
import { deepMerge, isPlainObject, omit } from "../core/json.js";
import type { FixtureEntry, FixtureSet } from "../store/fixtures.js";
import { fakerFor, generateRecord, inSchemaOrder } from "../store/generate.js";
import type { Faker } from "@faker-js/faker";
import type { Random } from "../core/random.js";
import { integrationsIn, INTEGRATION_REF, REPOSITORY_REF, type Integration, type IntegrationKind, type Repository } from "./integrations-store.js";

/** Keys an integration fixture carries besides the Integration fields. */
const FIXTURE_ONLY = ["kind", "repositories"];
const KINDS: IntegrationKind[] = ["github", "forge"];
/** Repository fields that follow from the integration (seedRepositories): never drawn. */
const REPOSITORY_SET_BY_STEP = ["host_integration_id", "owner", "url"];

/**
 * Seeds the `integrations` fixture section, drawing only from `random` (the step's own generator):
 * each entry is an Integration plus `kind` ("github", the default, or "forge") and its
 * `repositories`. Left-out fields are generated from the schemas and made coherent: a repository's
 * `host_integration_id` is its integration's id, its owner the integration's account name and its url
 * `https://github.com/<owner>/<name>`.
 */
export function seedIntegrations(ctx: MockContext, fixtures: FixtureSet, random: Random): void {
  const store = integrationsIn(ctx);
  const seen = new Map<string, string>();

  for (const entry of fixtures.entries("integrations")) {
    const label = `integrations/${entry.index}`;
    const given = omit(entry.value, FIXTURE_ONLY);
    // One faker for the entry and its repositories, seeded for the entry.
    const faker = fakerFor(random, label);
    const integration = inSchemaOrder(INTEGRATION_REF, deepMerge(generateRecord(INTEGRATION_REF, faker, Object.keys(given)), given) as unknown as Integration);
    const kind = entry.value.kind ?? "github";
    if (!KINDS.includes(kind as IntegrationKind)) fixtures.problem(entry, `must be one of "github", "forge"; got ${JSON.stringify(kind)}`, "/kind");
    // Repositories take their integration's id, so they are checked once that is valid.
    if (!fixtures.check(entry, INTEGRATION_REF, integration)) continue;
    const repositories = seedRepositories(faker, fixtures, entry, integration);
    if (!repositories) continue;

    const id = integration.id.toLowerCase();
    const first = seen.get(id);
    if (first) {
      fixtures.problem(entry, `duplicate integration id ${JSON.stringify(integration.id)} (first at ${first})`, "/id");
      continue;
    }
    seen.set(id, `${entry.file}#${entry.pointer}`);
    store.set(id, { integration, kind: kind as IntegrationKind, repositories });
  }
}

/** The entry's repositories completed and checked, or undefined when any is wrong (problems reported). */
function seedRepositories(faker: Faker, fixtures: FixtureSet, entry: FixtureEntry, integration: Integration): Repository[] | undefined {
  const list = entry.value.repositories ?? [];
  if (!Array.isArray(list)) {
    fixtures.problem(entry, `must be array; got ${JSON.stringify(list)?.slice(0, 80)}`, "/repositories");
    return undefined;
  }
  const out: Repository[] = [];
  let ok = true;
  list.forEach((given: unknown, i) => {
    const at = { file: entry.file, pointer: `${entry.pointer}/repositories/${i}` };
    if (!isPlainObject(given)) {
      fixtures.problem(at, `must be object; got ${JSON.stringify(given)?.slice(0, 80)}`);
      ok = false;
      return;
    }
    const generated = generateRecord(REPOSITORY_REF, faker, [...REPOSITORY_SET_BY_STEP, ...Object.keys(given)]);
    const owner = typeof given.owner === "string" ? given.owner : integration.name;
    const name = typeof given.name === "string" ? given.name : String(generated.name);
    const repository = inSchemaOrder(
      REPOSITORY_REF,
      deepMerge({ ...generated, host_integration_id: integration.id, owner, name, url: `https://github.com/${owner}/${name}` }, given) as unknown as Repository,
    );
    if (!fixtures.check(at, REPOSITORY_REF, repository)) ok = false;
    else if (repository.host_integration_id.toLowerCase() !== integration.id.toLowerCase()) {
      fixtures.problem(at, `must be the integration's id ${JSON.stringify(integration.id)} (or left out); got ${JSON.stringify(repository.host_integration_id)}`, "/host_integration_id");
      ok = false;
    } else out.push(repository);
  });
  return ok ? out : undefined;
}
