import type { Faker } from "@faker-js/faker";
import { fastUuid4 } from "../core/fast-uuid.js";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import { schemaKeys, type ConfigObject, type Deployment, type DeploymentMeta, type DeploymentSource, type DeploymentStatus, type RevisionStatus } from "./deployments-store.js";
import { GeneratedRevisions } from "./generated-revisions.js";
import { ValuePools, type Draw } from "./value-pools.js";
import { agentUrl } from "./deployments-service.js";
import type { Repository } from "./integrations-store.js";
import type { TakenNames } from "./deployment-names.js";

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
  const node = schemaNode(`${def}/properties/${property}`);
  const hint = node.faker as string | Record<string, unknown[]>;
  const [path, args] = typeof hint === "string" ? [hint, []] : (Object.entries(hint)[0] as [string, unknown[]]);
  let owner: Record<string, unknown> = faker as unknown as Record<string, unknown>;
  const parts = path.split(".");
  for (const part of parts.slice(0, -1)) owner = owner[part] as Record<string, unknown>;
  return (owner[parts[parts.length - 1] as string] as (...a: unknown[]) => unknown).apply(owner, args);
}

/** What coherent values are drawn from: the seeded generator, the integrations' repositories, the mock's origin. */
export interface GenerationEnv {
  random: Random;
  repositories: readonly Repository[];
  baseUrl: string;
}

/** A source's `source_config` or `source_revision_config` for one record (see compileConfig). */
type ConfigBuilder = (linked: ConfigObject, given: ConfigObject | undefined, fresh: FreshValues, tag: string | undefined) => ConfigObject;
/** Values of config fields not linked to anything, drawn in schema order; `tag` is the ref when it is a tag. */
type FreshValues = Record<string, ((tag: string | undefined) => unknown) | undefined>;

/**
 * The compiled builder of a config object for one source: a single object literal with every key of
 * the schema object in schema order — null where the field does not apply to the source, the linked
 * value where it must point at something real (coherentConfigs), else the draft's value or a fresh
 * draw — evaluated in key order, so the draws come in schema order. Compiled from the schema's keys
 * (JSON-quoted; the schemas are the package's own) because a literal is what V8 allocates best: a
 * record's objects built whole, in their final shape, and once a site's objects are seen to survive,
 * straight into the old generation instead of being copied there by the young one's collections.
 * 100,000 records are over a million objects; copying them was half the load time.
 */
function compileConfig(def: string, applies: readonly string[], linked: ReadonlySet<string>): ConfigBuilder {
  const fields = schemaKeys(def).map((key) => {
    const k = JSON.stringify(key);
    const value = !applies.includes(key) ? "null" : linked.has(key) ? `linked[${k}]` : `given?.[${k}] ?? fresh[${k}]?.(tag) ?? null`;
    return `${k}: ${value}`;
  });
  return new Function("linked", "given", "fresh", "tag", `return { ${fields.join(", ")} };`) as ConfigBuilder;
}

/** A copy of a `source_revision_config` with one field replaced, compiled as compileConfig is (an older revision's). */
type ConfigReplacer = (config: ConfigObject, value: unknown) => ConfigObject;
function compileReplacer(def: string, field: string): ConfigReplacer {
  const fields = schemaKeys(def).map((key) => `${JSON.stringify(key)}: ${key === field ? "value" : `config[${JSON.stringify(key)}]`}`);
  return new Function("config", "value", `return { ${fields.join(", ")} };`) as ConfigReplacer;
}

interface SourcePlan {
  source: DeploymentSource;
  config: ConfigBuilder;
  revision: ConfigBuilder;
  /** An older revision's configuration: the newest one's with another ARTIFACT value. */
  older: ConfigReplacer;
  /** SOURCE_RULES' answers for the source, read per record. */
  hosted: boolean;
  revisionFields: readonly string[];
  /** The statuses its newest revision can have failed at. */
  failures: readonly RevisionStatus[];
  /** What its revisions are built from (ARTIFACT). */
  artifact: "repo_commit_sha" | "image_uri" | "source_tarball_path";
}
const plans = new Map<DeploymentSource, SourcePlan>();

/** The source's builders and rules, compiled from the schema and SOURCE_RULES once, not per record. */
function planFor(source: DeploymentSource): SourcePlan {
  let plan = plans.get(source);
  if (!plan) {
    const rule = SOURCE_RULES[source];
    const linked = new Set(["integration_id", "repo_url", "repo_ref", ...(rule.hosted ? ["custom_url"] : [])]);
    plan = {
      source,
      config: compileConfig("SourceConfig", rule.config, linked),
      revision: compileConfig("SourceRevisionConfig", rule.revision, linked),
      older: compileReplacer("SourceRevisionConfig", ARTIFACT[source]),
      hosted: rule.hosted,
      revisionFields: rule.revision,
      failures: rule.builds ? BUILD_FAILURES : IMAGE_FAILURES,
      artifact: ARTIFACT[source],
    };
    plans.set(source, plan);
  }
  return plan;
}

/** What each source builds a revision from; older revisions were built from another one of it. */
const ARTIFACT: Record<DeploymentSource, "repo_commit_sha" | "image_uri" | "source_tarball_path"> = {
  github: "repo_commit_sha",
  external_docker: "image_uri",
  internal_docker: "image_uri",
  internal_source: "source_tarball_path",
};

/**
 * The compiled generator of one seeded sequence: the faker-annotated properties, enums and plans a
 * record needs are resolved once, when it is built, so a record costs draws of the seeded generator
 * and the objects it is made of. Fixture entries call faker for each value and draw ids with
 * random.uuid4(); bulk generation (given `pools`) picks values from pools and draws ids with fastUuid4.
 * Building it draws nothing: the sequence is the same whenever it is built.
 */
class DeploymentFactory {
  readonly uuid: () => string;
  private readonly fresh: FreshValues;
  readonly annotated: (def: string, property: string) => Draw;
  private readonly repoUrl: Draw;
  private readonly repoRef: Draw;
  private readonly tagRef: Draw;
  /** A new value of the field an older revision was built from. */
  readonly artifact: Record<"repo_commit_sha" | "image_uri" | "source_tarball_path", Draw>;
  /** The linked values of the record being built, and the pair configs() returns: reused, not made per record. */
  private readonly linked: ConfigObject = { integration_id: null, repo_url: null, repo_ref: null, custom_url: null };
  private readonly pair: { source_config: ConfigObject; source_revision_config: ConfigObject } = { source_config: {}, source_revision_config: {} };
  /** agentUrl() up to the id: a record's URL is then one concatenation with its id (one string object per record, not two). */
  private readonly agentUrlPrefix: string;

  constructor(
    private readonly env: GenerationEnv,
    /** Bulk generation's pools; none for fixture entries (faker called for each value). */
    pools?: ValuePools,
  ) {
    const { random } = env;
    this.agentUrlPrefix = agentUrl(env.baseUrl, "");
    const source = pools ? (key: string, draw: Draw) => pools.pool(key, draw) : (_key: string, draw: Draw) => draw;
    this.uuid = pools ? () => fastUuid4(random) : () => random.uuid4();
    this.annotated = (def, property) => source(`${def}/${property}`, () => fakeProperty(random.faker, def, property));
    const fake = this.annotated;
    this.repoUrl = fake("SourceConfig", "repo_url");
    this.repoRef = fake("SourceRevisionConfig", "repo_ref");
    this.tagRef = source("tag", () => `refs/tags/v${random.faker.system.semver()}`);
    const deploymentTypes = schemaEnum("DeploymentType");
    const [cpu, memory] = [fake("ResourceSpec", "cpu"), fake("ResourceSpec", "memory_mb")];
    const resourceSpec = () => ({ min_scale: random.int(1, 2), max_scale: random.int(2, 10), cpu: cpu(), memory_mb: memory() });
    // Bulk generation's specs are a few thousand combinations of pooled values: shared, not one per record.
    const sharedSpecs = pools ? new SharedObjects(["min_scale", "max_scale", "cpu", "memory_mb"]) : undefined;
    // Pooled whole: records share the object, not only its string (records are never changed in place).
    const listenerConfig = source("listener_config", () => ({ k8s_namespace: `${random.faker.internet.domainWord()}-agents` }));
    const [install, build] = [fake("SourceConfig", "install_command"), fake("SourceConfig", "build_command")];
    this.artifact = {
      repo_commit_sha: () => random.hex(40),
      image_uri: fake("SourceRevisionConfig", "image_uri"),
      source_tarball_path: fake("SourceRevisionConfig", "source_tarball_path"),
    };
    this.fresh = {
      deployment_type: () => random.pick(deploymentTypes),
      build_on_push: (tag) => !tag && random.next() < 0.5,
      custom_url: fake("SourceConfig", "custom_url"),
      resource_spec: sharedSpecs ? () => sharedSpecs.shared(resourceSpec()) : resourceSpec,
      listener_id: () => this.uuid(),
      listener_config: listenerConfig,
      // JS projects only: most deployments leave the commands to autodetection.
      install_command: () => (random.next() < 0.3 ? install() : null),
      build_command: () => (random.next() < 0.3 ? build() : null),
      langgraph_config_path: fake("SourceRevisionConfig", "langgraph_config_path"),
      image_uri: this.artifact.image_uri,
      source_tarball_path: this.artifact.source_tarball_path,
      repo_commit_sha: fake("SourceRevisionConfig", "repo_commit_sha"),
    };
  }

  /**
   * See coherentConfigs. `revisions`: bulk generation's revision configurations of the source, shared
   * by the records they are the same for. The pair returned is the same object on every call: read it
   * before the next.
   */
  configs(plan: SourcePlan, id: string, draft: { source_config?: ConfigObject; source_revision_config?: ConfigObject }, revisions?: SharedObjects): { source_config: ConfigObject; source_revision_config: ConfigObject } {
    const { random, repositories } = this.env;
    const repo = repositories.length ? random.pick(repositories) : undefined;
    const tag = random.next() < 0.15 ? (this.tagRef() as string) : undefined;
    // Fields that must point at something real; they win over the draft (a fixture's own values win over both).
    const linked = this.linked;
    linked.integration_id = repo?.host_integration_id ?? null;
    linked.repo_url = repo?.url ?? this.repoUrl();
    linked.repo_ref = tag ?? repo?.default_branch ?? this.repoRef();
    linked.custom_url = plan.hosted ? this.agentUrlPrefix + id : null;
    const config = plan.config(linked, draft.source_config, this.fresh, tag);
    const built = plan.revision(linked, draft.source_revision_config, this.fresh, tag);
    const revision = revisions ? revisions.shared(built) : built;
    if (typeof revision.repo_ref === "string" && revision.repo_ref.startsWith("refs/tags/")) config.build_on_push = false;
    const pair = this.pair;
    pair.source_config = config;
    pair.source_revision_config = revision;
    return pair;
  }
}

/**
 * Objects shared by every record they are the same for: configurations and resource specs, whose
 * values of `fields` (any other field is null) come from pools or a few repositories. A generated
 * `source_revision_config` is null but for its source's fields (SOURCE_RULES): a few hundred distinct
 * objects for any number of records instead of one per record (~90 bytes and a heap object of the ~12
 * a record is); an `external_docker` resource spec, a few thousand (an object and its `cpu` number).
 * Records are never changed in place.
 */
class SharedObjects {
  /** Each field's value in turn, the last one's map holding the object those values make. */
  private readonly root = new Map<unknown, unknown>();

  constructor(private readonly fields: readonly string[]) {}

  /** The object with `object`'s values of the fields, `object` itself the first time. */
  shared<T extends Record<string, unknown>>(object: T): T {
    const { fields } = this;
    const last = fields.length - 1;
    let node = this.root;
    for (let i = 0; i < last; i++) {
      const value = object[fields[i] as string];
      let next = node.get(value) as Map<unknown, unknown> | undefined;
      if (!next) node.set(value, (next = new Map()));
      node = next;
    }
    const value = object[fields[last] as string];
    const hit = node.get(value) as T | undefined;
    if (hit) return hit;
    node.set(value, object);
    return object;
  }
}

/**
 * A deployment's `source_config` and `source_revision_config`, coherent for its source: fields of other
 * sources null, a github deployment on a real repository of the fixtures' integrations (so the
 * integration listings and the deployment agree), a hosted one served by the mock's agent server.
 * Values of `draft` (json-schema-faker output, for fixtures) are kept where they apply and do not
 * have to point at something; the rest comes from the schema's faker annotations.
 */
export function coherentConfigs(
  env: GenerationEnv,
  source: DeploymentSource,
  id: string,
  draft: { source_config?: ConfigObject; source_revision_config?: ConfigObject } = {},
): { source_config: ConfigObject; source_revision_config: ConfigObject } {
  const { source_config, source_revision_config } = new DeploymentFactory(env).configs(planFor(source), id, draft);
  return { source_config, source_revision_config };
}

/** Takes each generated deployment with its metadata and its set's revisions, where it is record `index` (the store's putGenerated). */
export type GeneratedSink = (deployment: Deployment, meta: DeploymentMeta, revisions: GeneratedRevisions, index: number) => void;

const OTHER_STATUSES = ["UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const;
const OLDER_REVISION_STATUSES = ["DEPLOYED", "INTERRUPTED", "SKIPPED"] as const;
const BUILD_FAILURES: readonly RevisionStatus[] = ["BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED"];
const IMAGE_FAILURES: readonly RevisionStatus[] = ["DEPLOY_FAILED", "CREATE_FAILED"];
const NO_DRAFT = {};
// Shared by every record without any (records are never changed in place; frozen, so nothing can).
const NO_TAGS: readonly string[] = Object.freeze([]);
/**
 * The metadata generated records can have, shared: one frozen object per tag list (`tagLists`, then
 * none) and flag, by the list's index and the flag (no lookup per record).
 */
function metaTable(tagLists: readonly (readonly string[])[]): DeploymentMeta[][] {
  const meta = (tags: readonly string[], remote_reconciled: boolean): DeploymentMeta => Object.freeze({ tag_value_ids: tags, remote_reconciled, fail_next_at: null });
  return [...tagLists, NO_TAGS].map((tags) => [meta(tags, false), meta(tags, true)]);
}
const NO_SECRETS = Object.freeze([]) as unknown as Deployment["secrets"];

/**
 * `generate.deployments: {count}`: many coherent deployments, fast. json-schema-faker takes about
 * 2 ms a record and faker tens of microseconds a value, too slow for 100,000, so a compiled generator
 * (DeploymentFactory) takes values from pools drawn once from the schema's enums and faker annotations
 * (ValuePools: kept per seed, so a later start of the same seed does not call faker) and ids from the
 * seeded generator directly (docs/decisions/deployments.md). Each record goes to
 * `add` as soon as it is made: nothing holds the whole set but the store. Every object is a literal
 * built whole, arrays included (see compileConfig). Every revision is settled (none is in flight);
 * revisions are kept compact (GeneratedRevisions) and metadata shared.
 */
export function generateDeployments(
  env: GenerationEnv,
  options: { count: number; tenantId: string; before: number; takenNames: TakenNames; progress?: (done: number) => void },
  add: GeneratedSink,
): void {
  const { random } = env;
  const pools = new ValuePools(random);
  const factory = new DeploymentFactory(env, pools);
  const uuid = factory.uuid;
  const name = factory.annotated("Deployment", "name");
  // Each source with its plan and its shared revision configurations, picked by index.
  const sources = schemaEnum<DeploymentSource>("DeploymentSource")
    .filter((s) => s !== "github" || env.repositories.length)
    .map((s) => {
      const plan = planFor(s);
      return { plan, revisions: new SharedObjects(plan.revisionFields) };
    });
  const versions = pools.values("versions", 6, () => String(fakeProperty(random.faker, "Deployment", "image_version"))) as readonly string[];
  // One array per tag, shared by the records that have it (records are never changed in place).
  const tagLists = Array.from({ length: 8 }, () => [random.uuid4()]);
  const secret = { name: factory.annotated("Secret", "name"), value: factory.annotated("Secret", "value") };
  const secretPool = new SecretPool();
  const taken = options.takenNames;
  const names = taken.generatedSet();
  const revisions = new GeneratedRevisions(options.count, olderConfig);
  const metas = metaTable(tagLists);
  for (let i = 0; i < options.count; i++) {
    // Start-up blocks while this runs (10,000 take seconds): let the CLI say how far it got.
    if (options.progress && i % 1000 === 0 && i > 0) options.progress(i);
    // random.pick(sources) as an index: the same draw.
    const { plan, revisions: sharedRevisions } = sources[random.int(0, sources.length - 1)] as (typeof sources)[number];
    const source = plan.source;
    const id = uuid();
    let deploymentName = nameWith(String(name()), i + 1);
    while (taken.has(deploymentName)) deploymentName = nameWith(deploymentName.slice(0, 60), random.int(0, 99));
    names.push(deploymentName);
    const createdAt = options.before - random.int(1, 700) * DAY_MS - random.int(0, DAY_MS - 1);
    const configs = factory.configs(plan, id, NO_DRAFT, sharedRevisions);
    const newest = generatedRevisions(factory, random, revisions, i, plan, configs.source_revision_config, createdAt);
    const status: DeploymentStatus = random.next() < 0.9 ? "READY" : random.pick(OTHER_STATUSES);
    const secrets = distinctSecrets(secret, secretPool, random.int(0, 2));
    const deployment: Deployment = {
      name: deploymentName,
      source,
      source_config: configs.source_config,
      source_revision_config: configs.source_revision_config,
      secrets,
      secret_references: null,
      id,
      tenant_id: options.tenantId,
      created_at: createdAt,
      updated_at: newest.updatedAt,
      status,
      latest_revision_id: newest.id,
      active_revision_id: newest.active,
      image_version: random.pick(versions),
    };
    // random.pick(tagLists) as an index, or none (the last row of the table).
    const tags = random.next() < 0.5 ? random.int(0, tagLists.length - 1) : tagLists.length;
    add(deployment, (metas[tags] as DeploymentMeta[])[random.next() < 0.25 ? 1 : 0] as DeploymentMeta, revisions, i);
  }
  pools.save();
}

/**
 * `${base}-${suffix}` as one flat string, cut to 63 characters. A concatenation (`+`, a template
 * literal) is a string object per piece; flattening one copies the characters into a new string but
 * leaves the record holding a wrapper object that points at it. join() writes one string, which is
 * hashed (names, indexes) without walking pieces. The array joined is reused (one per record was
 * garbage: ~a fifth of what naming a record allocated).
 */
function nameWith(base: string, suffix: number): string {
  NAME_PARTS[0] = base;
  NAME_PARTS[2] = suffix;
  return NAME_PARTS.join("").slice(0, 63);
}
const NAME_PARTS: [string, string, number] = ["", "-", 0];

type Secret = Deployment["secrets"][number];

/**
 * Generated secrets, shared between records: one object per name and value (names come from a short
 * list, values from a pool: a few thousand pairs for any number of records) and one list per secret
 * alone. A record's secrets were ~2.7 heap objects of its ~16. Records are never changed in place.
 */
class SecretPool {
  private readonly byName = new Map<string, Map<string, { secret: Secret; alone: Deployment["secrets"] }>>();

  /** The shared secret of this name and value, with the list of it alone. */
  entry(name: string, value: string): { secret: Secret; alone: Deployment["secrets"] } {
    let byValue = this.byName.get(name);
    if (!byValue) this.byName.set(name, (byValue = new Map()));
    let entry = byValue.get(value);
    if (!entry) {
      const secret = Object.freeze({ name, value });
      byValue.set(value, (entry = { secret, alone: Object.freeze([secret]) as unknown as Deployment["secrets"] }));
    }
    return entry;
  }
}

/** Secrets are environment variables: one value per name. At most two, as an array literal (see compileConfig). */
function distinctSecrets(draw: { name: Draw; value: Draw }, pool: SecretPool, count: number): Deployment["secrets"] {
  if (count === 0) return NO_SECRETS;
  const first = pool.entry(String(draw.name()), String(draw.value()));
  if (count === 1) return first.alone;
  // The second name is drawn again while it is the first's (at most 19 more times).
  for (let tries = 1; tries < 20; tries++) {
    const name = String(draw.name());
    if (name !== first.secret.name) return [first.secret, pool.entry(name, String(draw.value())).secret];
  }
  return first.alone;
}

/** An older revision's configuration: the newest one's, but another commit, image or upload. */
export function olderRevisionConfig(random: Random, source: DeploymentSource, newest: ConfigObject): ConfigObject {
  const field = ARTIFACT[source];
  return { ...newest, [field]: field === "repo_commit_sha" ? random.hex(40) : fakeProperty(random.faker, "SourceRevisionConfig", field) };
}

/** An older generated revision's configuration (GeneratedRevisions builds them when they are read). */
function olderConfig(source: DeploymentSource, newest: ConfigObject, value: unknown): ConfigObject {
  return planFor(source).older(newest, value);
}

/** What a generated deployment takes from its revisions: the newest's id and last update, the id of the newest DEPLOYED one. */
interface NewestRevision {
  id: string;
  updatedAt: number;
  active: string | null;
}
const newestRevision: NewestRevision = { id: "", updatedAt: 0, active: null };

/**
 * One to three settled revisions, newest first, into record `row` of the set's table; the newest
 * carries the deployment's configuration. Each is built from its own commit, image or upload (a
 * pooled value is drawn again if taken). Draws as many values, in the same order, as building the
 * revisions' objects did. Returns what the deployment takes from them (the same object every call).
 */
function generatedRevisions(factory: DeploymentFactory, random: Random, table: GeneratedRevisions, row: number, plan: SourcePlan, config: ConfigObject, createdAt: number): NewestRevision {
  const count = random.int(1, 3);
  table.start(row, count);
  const failures = plan.failures;
  const field = plan.artifact;
  const artifact = factory.artifact[field];
  // The values revisions were built from so far: the newest's, then up to two older ones.
  const newestValue = config[field];
  let olderValue: unknown;
  const out = newestRevision;
  out.active = null;
  for (let slot = 0; slot < count; slot++) {
    const created = GeneratedRevisions.created(createdAt, count, slot);
    const status: RevisionStatus = slot === 0 ? (random.next() < 0.85 ? "DEPLOYED" : random.pick(failures)) : random.pick(OLDER_REVISION_STATUSES);
    let value: unknown;
    if (slot > 0) {
      // The newest's value is taken, so at least one is drawn; up to 20 while the draw is taken too.
      let tries = 0;
      do value = artifact();
      while (++tries < 20 && (value === newestValue || value === olderValue));
      olderValue = value;
    }
    table.revision(row, slot, status, value, random);
    const id = slot === 0 ? factory.uuid() : undefined;
    const updatedAt = table.updated(row, slot, created, random.int(5, 20));
    if (slot === 0) {
      out.id = id as string;
      out.updatedAt = updatedAt;
    }
    if (status === "DEPLOYED" && out.active === null) out.active = slot === 0 ? out.id : table.id(row, slot);
  }
  return out;
}
