import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { deepMerge, getOwn, isPlainObject, omit, toPointer } from "../core/json.js";
import type { FixtureEntry, FixtureSet } from "../store/fixtures.js";
import { fakerFor, generateRecord, inSchemaOrder } from "../store/generate.js";
import { NAME_PATTERN, sourceProblems } from "./deployments-rules.js";
import {
  DEPLOYMENT_REF,
  REVISION_REF,
  revisionToWire,
  storedTimes,
  wireTimes,
  type Deployment,
  type DeploymentMeta,
  type DeploymentSource,
  type DeploymentWire,
  type RevisionEntry,
  type RevisionStatus,
  type RevisionWire,
} from "./deployments-store.js";
import type { Deployments } from "./deployments-service.js";
import { coherentConfigs, generateDeployments, olderRevisionConfig, schemaEnum, type GenerationEnv } from "./deployments-generate.js";
import { isInFlight, pathFor } from "./lifecycle.js";
import type { Random } from "../core/random.js";
import { integrationsIn } from "./integrations-store.js";

const FIXTURE_REF = "fixtures/deployment-fixture.json#/$defs/DeploymentFixture";
/** Keys of a fixture entry that are not fields of the wire record (fixtures/deployment-fixture.json). */
const DEPLOYMENT_FIXTURE_KEYS = ["revisions", "tag_value_ids", "remote_reconciled", "fail_next_revision_at"];
const REVISION_FIXTURE_KEYS = ["remote_reconciled", "fail_at"];
/** Fields of the wire record that completeEntry sets itself: never drawn from the schema. */
const SET_BY_STEP = ["source", "source_config", "source_revision_config", "tenant_id", "updated_at", "status", "latest_revision_id", "active_revision_id"];
const HOUR_MS = 3_600_000;

/** A revision entry in wire form, as a fixture writes it (checked against the schema before it is stored). */
type WireRevisionEntry = Omit<RevisionEntry, "revision"> & { revision: RevisionWire };

/**
 * A fixture entry completed, still in wire form (the fixture's own timestamp text, any ISO form): it
 * is checked against the wire schemas as it is, and its times are parsed to epoch ms when it is stored.
 */
interface Loaded {
  deployment: DeploymentWire;
  meta: DeploymentMeta;
  /** In wire form. */
  revisions: WireRevisionEntry[];
  /** The newest revision when the fixture lists it in flight, with its scripted failure. */
  resume?: { revision: RevisionWire; failAt: RevisionStatus | null };
}

/** Generated records checked against the schema: all of the first CHECK_ALL_BELOW, then one in CHECK_EVERY (a prime). */
const CHECK_ALL_BELOW = 200;
const CHECK_EVERY = 1009;

/**
 * Seeds deployments from the `deployments` fixture section (fields left out are generated from the
 * schema, then made coherent) and from `generate.deployments`, drawing only from `random` (the step's
 * own generator). Problems are reported on the fixture set with file and JSON pointer; fixture
 * revisions listed in flight continue on the mock's clock.
 */
export function loadDeploymentFixtures(ctx: MockContext, fixtures: FixtureSet, deployments: Deployments, random: Random): void {
  const { store, lifecycle, tenancy } = deployments;
  const start = ctx.clock.now();
  const repositories = [...integrationsIn(ctx).values()].flatMap((i) => i.repositories);
  const names = new Map<string, Set<string>>();
  const namesOf = (tenantId: string) => names.get(tenantId) ?? (names.set(tenantId, new Set()).get(tenantId) as Set<string>);
  const knownTenant = (id: string) => tenancy.tenantIds.length === 0 || tenancy.tenantIds.includes(id);
  const resumed: Loaded[] = [];

  for (const entry of fixtures.entries("deployments")) {
    if (!fixtures.check(entry, FIXTURE_REF, entry.value)) continue;
    const label = `deployments/${entry.index}`;
    const env: GenerationEnv = { random: random.derive(label), faker: fakerFor(random, label), repositories };
    const loaded = completeEntry(entry, env, tenancy.defaultTenantId, start);
    let ok = fixtures.check(entry, DEPLOYMENT_REF, loaded.deployment);
    loaded.revisions.forEach((r, i) => (ok = fixtures.check({ file: entry.file, pointer: `${entry.pointer}/revisions/${i}` }, REVISION_REF, r.revision) && ok));
    if (!ok) continue;
    const problem = (pointer: string, reason: string) => fixtures.problem(entry, reason, pointer);
    const problemsBefore = fixtures.problems.length;
    const { deployment } = loaded;
    for (const p of sourceProblems(deployment.source, deployment.source_config, deployment.source_revision_config)) problem(toPointer(p.field.split(".")), p.reason);
    if (!NAME_PATTERN.test(deployment.name)) problem("/name", `must match ${NAME_PATTERN.source} (lowercase letters, digits and hyphens, starting with a letter)`);
    if (namesOf(deployment.tenant_id).has(deployment.name)) problem("/name", `another deployment of tenant ${deployment.tenant_id} is named '${deployment.name}'`);
    if (store.has(deployment.id)) problem("/id", `another deployment has id ${deployment.id}`);
    if (!knownTenant(deployment.tenant_id)) problem("/tenant_id", `no tenant ${deployment.tenant_id} in the fixtures' tenants`);
    const integration = deployment.source_config.integration_id;
    if (typeof integration === "string" && !integrationsIn(ctx).has(integration)) problem("/source_config/integration_id", `no integration ${integration} in the fixtures' integrations`);
    if (Date.parse(deployment.created_at) > start) problem("/created_at", `must be before the clock's start (${formatTimestamp(start)})`);
    revisionProblems(loaded, entry, problem);
    if (fixtures.problems.length > problemsBefore) continue;
    namesOf(deployment.tenant_id).add(deployment.name);
    store.put(
      storedTimes(deployment),
      loaded.meta,
      loaded.revisions.map((r) => ({ ...r, revision: storedTimes(r.revision) })),
    );
    if (loaded.resume) resumed.push(loaded);
  }

  fixtures.documents.forEach((doc, index) => {
    const section = getOwn(getOwn(doc.content, "generate"), "deployments");
    if (!isPlainObject(section)) return;
    const at = { file: doc.file, pointer: "/generate/deployments" };
    const tenantId = typeof section.tenant_id === "string" ? section.tenant_id.toLowerCase() : tenancy.defaultTenantId;
    if (!knownTenant(tenantId)) return fixtures.problem(at, `no tenant ${tenantId} in the fixtures' tenants`, "/tenant_id");
    const setRandom = random.derive(`generate/${index}`);
    const env: GenerationEnv = { random: setRandom, faker: setRandom.faker, repositories };
    const total = Number(section.count);
    const onProgress = ctx.options.onProgress;
    const progress = onProgress && total >= 2000 ? (done: number) => onProgress({ task: "generating deployments", done, total }) : undefined;
    // Generated records are schema-valid by construction; a sample is checked (every record of a
    // small set, then one in CHECK_EVERY: ~100 of 100,000), so a generator bug still fails loudly
    // without validating every record — that was most of the load time. The first record that
    // fails ends the checks: its problems stop the start.
    const sample: { deployment: Deployment; revisions: RevisionEntry[] }[] = [];
    let row = 0;
    generateDeployments(env, { count: total, tenantId, before: start, takenNames: namesOf(tenantId), progress }, (deployment, meta, revisions) => {
      if (row < CHECK_ALL_BELOW || row % CHECK_EVERY === 0) sample.push({ deployment, revisions });
      row++;
      store.put(deployment, meta, revisions);
    });
    sample.every(
      ({ deployment, revisions }) =>
        fixtures.check(at, DEPLOYMENT_REF, wireTimes(deployment)) && revisions.every((r) => fixtures.check(at, REVISION_REF, revisionToWire(r.revision))),
    );
    progress?.(total);
  });

  for (const { deployment, resume } of resumed) {
    if (resume) lifecycle.resume(deployment.id, resume.revision.id, resume.revision.source, resume.revision.status, resume.failAt, start);
  }
}

/**
 * A fixture entry completed: the fields it leaves out drawn from the schema, configurations coherent
 * for the source, the entry's own fields over them, then its revisions (newest first) and the fields
 * that follow from them.
 */
function completeEntry(entry: FixtureEntry, env: GenerationEnv, defaultTenant: string, start: number): Loaded {
  const value = omit(entry.value, DEPLOYMENT_FIXTURE_KEYS);
  const sources = schemaEnum<DeploymentSource>("DeploymentSource");
  // A source the schema does not know is reported by the entry's check; the record is completed for a
  // drawn one, which the step can complete (github only with a repository to point at).
  const drawable = sources.filter((s) => s !== "github" || env.repositories.length > 0);
  const source = sources.includes(value.source as DeploymentSource) ? (value.source as DeploymentSource) : env.faker.helpers.arrayElement(drawable);
  // The fields the entry gives are not drawn, but for an id it gives in a form the step cannot use;
  // nor are secret references but for the one source that has them.
  const given = Object.keys(value).filter((key) => key !== "id" || typeof value.id === "string");
  const drawn = generateRecord(DEPLOYMENT_REF, env.faker, [...SET_BY_STEP, ...given, ...(source === "external_docker" ? [] : ["secret_references"])]);
  const id = (typeof value.id === "string" ? value.id : String(drawn.id)).toLowerCase();
  const fixtureRevisions = (Array.isArray(entry.value.revisions) ? entry.value.revisions : [{}]) as Record<string, unknown>[];
  const configs = coherentConfigs(env, source, {
    source_config: isPlainObject(value.source_config) ? value.source_config : undefined,
    source_revision_config: isPlainObject(value.source_revision_config) ? value.source_revision_config : undefined,
  });
  const drawnAt = Date.parse(String(drawn.created_at));
  const createdAt = Math.min(Number.isNaN(drawnAt) ? start : drawnAt, start - fixtureRevisions.length * HOUR_MS - HOUR_MS);
  const base = {
    ...drawn,
    source,
    ...configs,
    secret_references: drawn.secret_references ?? null,
    id,
    tenant_id: defaultTenant,
    created_at: formatTimestamp(createdAt),
  };
  const deployment = deepMerge(base, value) as unknown as DeploymentWire;
  deployment.id = id;
  deployment.tenant_id = deployment.tenant_id.toLowerCase();
  // The deployment's revision configuration is its newest revision's (schema: "refer to the latest revision").
  const newestConfig = getOwn(fixtureRevisions[0], "source_revision_config");
  if (value.source_revision_config === undefined && isPlainObject(newestConfig)) {
    deployment.source_revision_config = deepMerge(configs.source_revision_config, newestConfig);
  }

  const created = Date.parse(deployment.created_at);
  const revisions = fixtureRevisions.map((fixture, i): WireRevisionEntry => {
    const at = created + (fixtureRevisions.length - 1 - i) * HOUR_MS;
    const defaults: RevisionWire = {
      id: env.random.uuid4(),
      created_at: formatTimestamp(at),
      updated_at: formatTimestamp(at + 10 * 60_000),
      status: "DEPLOYED",
      source,
      source_revision_config: i === 0 ? deployment.source_revision_config : olderRevisionConfig(env, source, deployment.source_revision_config),
    };
    const revision = deepMerge(defaults, omit(fixture, REVISION_FIXTURE_KEYS)) as unknown as RevisionWire;
    revision.id = String(revision.id).toLowerCase();
    return { deployment_id: id, remote_reconciled: fixture.remote_reconciled === true, revision };
  });
  const newest = (revisions[0] as WireRevisionEntry).revision;
  const derived = {
    latest_revision_id: newest.id,
    active_revision_id: revisions.find((r) => r.revision.status === "DEPLOYED")?.revision.id ?? null,
    updated_at: Date.parse(newest.updated_at) > Date.parse(deployment.created_at) ? newest.updated_at : deployment.created_at,
    status: revisions.length === 1 && newest.status === "CREATING" ? "AWAITING_DATABASE" : "READY",
  };
  for (const [key, derivedValue] of Object.entries(derived)) if (value[key] === undefined) (deployment as unknown as Record<string, unknown>)[key] = derivedValue;

  const failAt = getOwn(fixtureRevisions[0], "fail_at") as RevisionStatus | undefined;
  return {
    deployment: inSchemaOrder(DEPLOYMENT_REF, deployment),
    meta: {
      tag_value_ids: ((entry.value.tag_value_ids ?? []) as string[]).map((t) => t.toLowerCase()),
      remote_reconciled: entry.value.remote_reconciled === true,
      fail_next_at: (entry.value.fail_next_revision_at as RevisionStatus | undefined) ?? null,
    },
    revisions,
    resume: isInFlight(newest.status) ? { revision: newest, failAt: failAt ?? null } : undefined,
  };
}

/** Revisions must agree with the deployment and the lifecycle: one in flight at most (the newest), on its source's path. */
function revisionProblems(loaded: Loaded, entry: FixtureEntry, problem: (pointer: string, reason: string) => void): void {
  const { deployment, revisions } = loaded;
  const ids = revisions.map((r) => r.revision.id);
  if (deployment.latest_revision_id !== ids[0]) problem("/latest_revision_id", `must be the newest revision's id (${ids[0]}), the first of "revisions"`);
  const active = deployment.active_revision_id;
  if (active !== null && revisions.find((r) => r.revision.id === active)?.revision.status !== "DEPLOYED") {
    problem("/active_revision_id", "must be the id of one of its DEPLOYED revisions, or null");
  }
  const failNext = loaded.meta.fail_next_at;
  if (failNext && !pathFor(deployment.source).includes(failNext)) problem("/fail_next_revision_at", `a '${deployment.source}' revision never reaches ${failNext} (image sources skip the build states)`);
  revisions.forEach(({ revision }, i) => {
    const at = `/revisions/${i}`;
    if (new Set(ids).size !== ids.length && ids.indexOf(revision.id) !== i) problem(`${at}/id`, `another revision has id ${revision.id}`);
    if (i > 0 && Date.parse(revision.created_at) > Date.parse((revisions[i - 1] as WireRevisionEntry).revision.created_at)) problem(`${at}/created_at`, "revisions are listed newest first");
    const path = pathFor(revision.source);
    if (isInFlight(revision.status) && i > 0) problem(`${at}/status`, `only the newest revision can be in flight; a newer one interrupts it (use INTERRUPTED)`);
    else if (isInFlight(revision.status) && !path.includes(revision.status)) problem(`${at}/status`, `a '${revision.source}' revision never is ${revision.status} (image sources skip the build states)`);
    const failAt = getOwn((entry.value.revisions as unknown[] | undefined)?.[i], "fail_at") as RevisionStatus | undefined;
    if (failAt && (i > 0 || !isInFlight(revision.status) || path.indexOf(failAt) < path.indexOf(revision.status))) {
      problem(`${at}/fail_at`, `only the newest revision, in flight and not yet past ${failAt}, can fail at it`);
    }
  });
}
