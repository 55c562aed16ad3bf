import type { Faker } from "@faker-js/faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import { fakeFromHint, type FakerHint } from "../store/generate.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import { schemaKeys, type ConfigObject, type Deployment, type DeploymentMeta, type DeploymentSource, type RevisionEntry, type RevisionStatus } from "./deployments-store.js";
import { ValuePools, type Draw } from "./value-pools.js";
import type { Repository } from "./integrations-store.js";

const DEPLOYMENT_SCHEMA = "control-plane/deployment.json#/$defs/";
const DAY_MS = 86_400_000;

/** Values drawn from the schema: enums, and faker calls from a property's `faker` annotation. */
export function schemaEnum<T extends string>(def: string): readonly T[] {
  return schemaNode(def).enum as T[];
}

// Schemas are static: resolved nodes are looked up once, not per generated record.
const nodes = new Map<string, Record<string, unknown>>();
function schemaNode(path: string): Record<string, unknown> {
  let node = nodes.get(path);
  if (!node) nodes.set(path, (node = schemas().resolve(`${DEPLOYMENT_SCHEMA}${path}`)));
  return node;
}

/** Calls faker as the property's `faker` annotation says (`"git.branch"` or `{"helpers.arrayElement": [[…]]}`). */
export function fakeProperty(faker: Faker, def: string, property: string): unknown {
  return fakeFromHint(faker, schemaNode(`${def}/properties/${property}`).faker as FakerHint);
}

/**
 * What coherent values are drawn from: the seeded generator and a faker seeded for the same records
 * (faker is a step's own, re-seeded for each fixture entry: building one costs more than an entry)
 * and the integrations' repositories.
 */
export interface GenerationEnv {
  random: Random;
  faker: Faker;
  repositories: readonly Repository[];
}

/** Values of config fields not linked to anything, drawn in schema order; `tag` is the ref when it is a tag. */
type FreshValues = Record<string, ((tag: string | undefined) => unknown) | undefined>;

/**
 * Fields that must point at something real: a repository of the fixtures' integrations, and a hosted
 * deployment's `custom_url`, the mock's agent server for it, which the wire form sets on the origin
 * the client reached (toWire): stored as null, so seeded records do not depend on the mock's URL.
 */
type Linked = Record<string, unknown>;

/**
 * A config object for one source with every key of the schema object, in schema order: null where the
 * field does not apply to the source, the linked value where it must point at something real, the
 * given value (a fixture's own) where there is one, else a fresh draw (in key order, so the draws come
 * in schema order).
 */
function buildConfig(def: string, applies: readonly string[], linked: Linked, given: ConfigObject, fresh: FreshValues, tag: string | undefined): ConfigObject {
  const out: ConfigObject = {};
  for (const key of schemaKeys(def)) {
    if (!applies.includes(key)) out[key] = null;
    else if (Object.hasOwn(linked, key)) out[key] = linked[key];
    else if (Object.hasOwn(given, key)) out[key] = given[key];
    else out[key] = fresh[key]?.(tag) ?? null;
  }
  return out;
}

/** What each source builds a revision from; older revisions were built from another one of it. */
const ARTIFACT: Record<DeploymentSource, "repo_commit_sha" | "image_uri" | "source_tarball_path"> = {
  github: "repo_commit_sha",
  external_docker: "image_uri",
  internal_docker: "image_uri",
  internal_source: "source_tarball_path",
};

/**
 * The value sources of one seeded sequence: the faker-annotated properties and enums a record needs.
 * Fixture entries call faker for each value; bulk generation (given `pools`) picks values from pools.
 * Building it draws nothing: the sequence is the same whenever it is built.
 */
class DeploymentFactory {
  private readonly fresh: FreshValues;
  readonly annotated: (def: string, property: string) => Draw;
  private readonly repoUrl: Draw;
  private readonly repoRef: Draw;
  private readonly tagRef: Draw;
  /** A new value of the field an older revision was built from. */
  readonly artifact: Record<"repo_commit_sha" | "image_uri" | "source_tarball_path", Draw>;

  constructor(
    private readonly env: GenerationEnv,
    /** Bulk generation's pools; none for fixture entries (faker called for each value). */
    pools?: ValuePools,
  ) {
    const { random, faker } = env;
    const source = pools ? (key: string, draw: Draw) => pools.pool(key, draw) : (_key: string, draw: Draw) => draw;
    this.annotated = (def, property) => source(`${def}/${property}`, () => fakeProperty(faker, def, property));
    const fake = this.annotated;
    this.repoUrl = fake("SourceConfig", "repo_url");
    this.repoRef = fake("SourceRevisionConfig", "repo_ref");
    this.tagRef = source("tag", () => `refs/tags/v${faker.system.semver()}`);
    const deploymentTypes = schemaEnum("DeploymentType");
    const [cpu, memory] = [fake("ResourceSpec", "cpu"), fake("ResourceSpec", "memory_mb")];
    const namespace = source("listener_namespace", () => `${faker.internet.domainWord()}-agents`);
    const [install, build] = [fake("SourceConfig", "install_command"), fake("SourceConfig", "build_command")];
    this.artifact = {
      repo_commit_sha: fake("SourceRevisionConfig", "repo_commit_sha"),
      image_uri: fake("SourceRevisionConfig", "image_uri"),
      source_tarball_path: fake("SourceRevisionConfig", "source_tarball_path"),
    };
    this.fresh = {
      deployment_type: () => random.pick(deploymentTypes),
      build_on_push: (tag) => !tag && random.next() < 0.5,
      custom_url: fake("SourceConfig", "custom_url"),
      resource_spec: () => ({ min_scale: random.int(1, 2), max_scale: random.int(2, 10), cpu: cpu(), memory_mb: memory() }),
      listener_id: () => random.uuid4(),
      listener_config: () => ({ k8s_namespace: namespace() }),
      // JS projects only: most deployments leave the commands to autodetection.
      install_command: () => (random.next() < 0.3 ? install() : null),
      build_command: () => (random.next() < 0.3 ? build() : null),
      langgraph_config_path: fake("SourceRevisionConfig", "langgraph_config_path"),
      image_uri: this.artifact.image_uri,
      source_tarball_path: this.artifact.source_tarball_path,
      repo_commit_sha: this.artifact.repo_commit_sha,
    };
  }

  /** See coherentConfigs. */
  configs(source: DeploymentSource, given: GivenConfigs = {}): { source_config: ConfigObject; source_revision_config: ConfigObject } {
    const { random, repositories } = this.env;
    const rule = SOURCE_RULES[source];
    const repo = repositories.length ? random.pick(repositories) : undefined;
    const tag = random.next() < 0.15 ? (this.tagRef() as string) : undefined;
    // Fields that must point at something real (a fixture's own values win over them).
    const linked: Linked = {
      integration_id: repo?.host_integration_id ?? null,
      repo_url: repo?.url ?? this.repoUrl(),
      repo_ref: tag ?? repo?.default_branch ?? this.repoRef(),
      ...(rule.hosted ? { custom_url: null } : {}),
    };
    const source_config = buildConfig("SourceConfig", rule.config, linked, given.source_config ?? {}, this.fresh, tag);
    const source_revision_config = buildConfig("SourceRevisionConfig", rule.revision, linked, given.source_revision_config ?? {}, this.fresh, tag);
    if (typeof source_revision_config.repo_ref === "string" && source_revision_config.repo_ref.startsWith("refs/tags/")) source_config.build_on_push = false;
    return { source_config, source_revision_config };
  }
}

/**
 * A deployment's `source_config` and `source_revision_config`, coherent for its source: fields of other
 * sources null, a github deployment on a real repository of the fixtures' integrations (so the
 * integration listings and the deployment agree), a hosted one served by the mock's agent server.
 * Values `given` (a fixture's own) are kept where they apply and do not have to point at something; the
 * rest comes from the schema's faker annotations.
 */
export function coherentConfigs(env: GenerationEnv, source: DeploymentSource, given: GivenConfigs = {}): { source_config: ConfigObject; source_revision_config: ConfigObject } {
  return new DeploymentFactory(env).configs(source, given);
}

/** A fixture entry's own configuration values. */
export interface GivenConfigs {
  source_config?: ConfigObject;
  source_revision_config?: ConfigObject;
}

/** Takes each generated deployment with its metadata and revisions (the store's put). */
export type GeneratedSink = (deployment: Deployment, meta: DeploymentMeta, revisions: RevisionEntry[]) => void;

const OTHER_STATUSES = ["UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const;
const OLDER_REVISION_STATUSES = ["DEPLOYED", "INTERRUPTED", "SKIPPED"] as const;
const BUILD_FAILURES: readonly RevisionStatus[] = ["BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED"];
const IMAGE_FAILURES: readonly RevisionStatus[] = ["DEPLOY_FAILED", "CREATE_FAILED"];
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * `generate.deployments: {count}`: many coherent deployments, fast. Faker takes tens of microseconds
 * a value, too slow for 100,000 records of ~15 values each, so values come from
 * pools drawn once from the schema's enums and faker annotations (ValuePools) and ids from the seeded
 * generator (docs/decisions/deployments.md). Each record goes to `add` as soon as it is made. Every
 * revision is settled (none is in flight).
 */
export function generateDeployments(
  env: GenerationEnv,
  options: { count: number; tenantId: string; before: number; takenNames: Set<string>; progress?: (done: number) => void },
  add: GeneratedSink,
): void {
  const { random, faker } = env;
  const pools = new ValuePools(random);
  const factory = new DeploymentFactory(env, pools);
  const name = factory.annotated("Deployment", "name");
  const sources = schemaEnum<DeploymentSource>("DeploymentSource").filter((s) => s !== "github" || env.repositories.length);
  const versions = pools.values(6, () => String(fakeProperty(faker, "Deployment", "image_version"))) as readonly string[];
  // Records share their metadata, one per tag (or none) and reconciled flag: it is never changed in place.
  const tagged = Array.from({ length: 8 }, () => metadata([random.uuid4()]));
  const untagged = metadata([]);
  const secret = { name: factory.annotated("Secret", "name"), value: factory.annotated("Secret", "value") };
  const taken = options.takenNames;
  for (let i = 0; i < options.count; i++) {
    // Start-up blocks while this runs (10,000 take seconds): let the CLI say how far it got.
    if (options.progress && i % 1000 === 0 && i > 0) options.progress(i);
    const source = random.pick(sources);
    const id = random.uuid4();
    // Joined, not concatenated: one flat string rather than a tree of three (every record keeps its name).
    let deploymentName = [String(name()), i + 1].join("-").slice(0, 63);
    while (taken.has(deploymentName)) deploymentName = `${deploymentName.slice(0, 60)}-${random.int(0, 99)}`;
    taken.add(deploymentName);
    const createdAt = options.before - random.int(1, 700) * DAY_MS - random.int(0, DAY_MS - 1);
    const configs = factory.configs(source);
    const revisions = generatedRevisions(factory, random, id, source, configs.source_revision_config, createdAt);
    const newest = (revisions[0] as RevisionEntry).revision;
    const deployment: Deployment = {
      name: deploymentName,
      source,
      source_config: configs.source_config,
      source_revision_config: configs.source_revision_config,
      secrets: distinctSecrets(secret, random.int(0, 2)),
      secret_references: null,
      id,
      tenant_id: options.tenantId,
      created_at: createdAt,
      updated_at: newest.updated_at,
      status: random.next() < 0.9 ? "READY" : random.pick(OTHER_STATUSES),
      latest_revision_id: newest.id,
      active_revision_id: revisions.find((r) => r.revision.status === "DEPLOYED")?.revision.id ?? null,
      image_version: random.pick(versions),
    };
    const metas = random.next() < 0.5 ? random.pick(tagged) : untagged;
    add(deployment, random.next() < 0.25 ? metas.reconciled : metas.unreconciled, revisions);
  }
}

/** A generated deployment's metadata with these tags, reconciled with the remote or not. */
function metadata(tag_value_ids: readonly string[]): { reconciled: DeploymentMeta; unreconciled: DeploymentMeta } {
  return {
    reconciled: { tag_value_ids, remote_reconciled: true, fail_next_at: null },
    unreconciled: { tag_value_ids, remote_reconciled: false, fail_next_at: null },
  };
}

type Secret = Deployment["secrets"][number];

/** Secrets are environment variables: one value per name. At most two. */
function distinctSecrets(draw: { name: Draw; value: Draw }, count: number): Secret[] {
  if (count === 0) return [];
  const first = { name: String(draw.name()), value: String(draw.value()) };
  if (count === 1) return [first];
  // The second name is drawn again while it is the first's (at most 19 more times).
  for (let tries = 1; tries < 20; tries++) {
    const name = String(draw.name());
    if (name !== first.name) return [first, { name, value: String(draw.value()) }];
  }
  return [first];
}

/** An older revision's configuration: the newest one's, but another commit, image or upload. */
export function olderRevisionConfig(env: GenerationEnv, source: DeploymentSource, newest: ConfigObject): ConfigObject {
  const field = ARTIFACT[source];
  return { ...newest, [field]: field === "repo_commit_sha" ? env.random.hex(40) : fakeProperty(env.faker, "SourceRevisionConfig", field) };
}

/**
 * One to three settled revisions, newest first, an hour apart (the oldest created with the
 * deployment); the newest carries the deployment's configuration, each older one its own commit,
 * image or upload (a pooled value is drawn again if taken).
 */
function generatedRevisions(factory: DeploymentFactory, random: Random, deploymentId: string, source: DeploymentSource, config: ConfigObject, createdAt: number): RevisionEntry[] {
  const count = random.int(1, 3);
  const failures = SOURCE_RULES[source].builds ? BUILD_FAILURES : IMAGE_FAILURES;
  const field = ARTIFACT[source];
  const artifact = factory.artifact[field];
  const used: unknown[] = [config[field]];
  // Sized up front: an array grown by push keeps room for 17 entries, and every record keeps this one.
  return Array.from({ length: count }, (_, slot): RevisionEntry => {
    const created = createdAt + (count - 1 - slot) * HOUR_MS;
    const status: RevisionStatus = slot === 0 ? (random.next() < 0.85 ? "DEPLOYED" : random.pick(failures)) : random.pick(OLDER_REVISION_STATUSES);
    let revisionConfig = config;
    if (slot > 0) {
      let value: unknown;
      let tries = 0;
      do value = artifact();
      while (++tries < 20 && used.includes(value));
      used.push(value);
      revisionConfig = { ...config, [field]: value };
    }
    return {
      deployment_id: deploymentId,
      remote_reconciled: false,
      revision: {
        id: random.uuid4(),
        created_at: created,
        updated_at: created + random.int(5, 20) * MINUTE_MS,
        status,
        source,
        source_revision_config: revisionConfig,
      },
    };
  });
}
