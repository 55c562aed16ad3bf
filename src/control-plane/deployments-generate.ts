import type { Faker } from "@faker-js/faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import { schemaKeys, type ConfigObject, type Deployment, type DeploymentMeta, type DeploymentSource, type DeploymentStatus, type RevisionEntry, type RevisionStatus } from "./deployments-store.js";
import { agentUrl } from "./deployments-service.js";
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
  /**
   * Where faker values come from. Absent: faker is called for each value (fixture entries). Bulk
   * generation sets a pooled source instead (see valuePools): same seed, same values, far fewer calls.
   */
  fake?: (group: string, key: string, draw: () => unknown) => unknown;
  /** Ids; random.uuid4() when absent. */
  uuid?: () => string;
}

function value(env: GenerationEnv, key: string, draw: () => unknown): unknown {
  return env.fake ? env.fake("faker", key, draw) : draw();
}

/** A value as the schema property's `faker` annotation draws it. */
function fake(env: GenerationEnv, def: string, property: string): unknown {
  return env.fake ? env.fake(def, property, () => fakeProperty(env.random.faker, def, property)) : fakeProperty(env.random.faker, def, property);
}

/** Values of config fields not linked to anything, drawn in schema order; `tag` is the ref when it is a tag. */
const FRESH: Record<string, (env: GenerationEnv, tag: string | undefined) => unknown> = {
  deployment_type: ({ random }) => random.pick(schemaEnum("DeploymentType")),
  build_on_push: ({ random }, tag) => !tag && random.next() < 0.5,
  custom_url: (env) => fake(env, "SourceConfig", "custom_url"),
  resource_spec: (env) => ({
    min_scale: env.random.int(1, 2),
    max_scale: env.random.int(2, 10),
    cpu: fake(env, "ResourceSpec", "cpu"),
    memory_mb: fake(env, "ResourceSpec", "memory_mb"),
  }),
  listener_id: (env) => (env.uuid ? env.uuid() : env.random.uuid4()),
  listener_config: (env) => ({ k8s_namespace: `${value(env, "internet.domainWord", () => env.random.faker.internet.domainWord()) as string}-agents` }),
  // JS projects only: most deployments leave the commands to autodetection.
  install_command: (env) => (env.random.next() < 0.3 ? fake(env, "SourceConfig", "install_command") : null),
  build_command: (env) => (env.random.next() < 0.3 ? fake(env, "SourceConfig", "build_command") : null),
  langgraph_config_path: (env) => fake(env, "SourceRevisionConfig", "langgraph_config_path"),
  image_uri: (env) => fake(env, "SourceRevisionConfig", "image_uri"),
  source_tarball_path: (env) => fake(env, "SourceRevisionConfig", "source_tarball_path"),
  repo_commit_sha: (env) => fake(env, "SourceRevisionConfig", "repo_commit_sha"),
};

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
  const { random } = env;
  const rule = SOURCE_RULES[source];
  const repo = env.repositories.length ? random.pick(env.repositories) : undefined;
  const tag = random.next() < 0.15 ? `refs/tags/v${value(env, "system.semver", () => random.faker.system.semver()) as string}` : undefined;
  // Fields that must point at something real; they win over the draft (a fixture's own values win over both).
  const linked: ConfigObject = {
    integration_id: repo?.host_integration_id ?? null,
    repo_url: repo?.url ?? fake(env, "SourceConfig", "repo_url"),
    repo_ref: tag ?? repo?.default_branch ?? fake(env, "SourceRevisionConfig", "repo_ref"),
    ...(rule.hosted ? { custom_url: agentUrl(env.baseUrl, id) } : {}),
  };
  const fill = (def: "SourceConfig" | "SourceRevisionConfig", applies: readonly string[], given: ConfigObject | undefined) => {
    const out: ConfigObject = {};
    for (const key of schemaKeys(def)) {
      out[key] = !applies.includes(key) ? null : key in linked ? linked[key] : (given?.[key] ?? FRESH[key]?.(env, tag) ?? null);
    }
    return out;
  };
  const config = fill("SourceConfig", rule.config, draft.source_config);
  const revision = fill("SourceRevisionConfig", rule.revision, draft.source_revision_config);
  if (typeof revision.repo_ref === "string" && revision.repo_ref.startsWith("refs/tags/")) config.build_on_push = false;
  return { source_config: config, source_revision_config: revision };
}

/**
 * The pooled value source of bulk generation — the "compiled" generator: each faker-annotated
 * property gets a pool of POOL_SIZE values, drawn from faker once, the first time it is needed; every
 * record then picks from the pools with the seeded generator. Faker is called a few thousand times
 * instead of ~15 times a record, and records share the pooled strings (memory). Same seed, same
 * pools, same picks: as deterministic as before.
 */
export function valuePools(random: Random, size = POOL_SIZE): NonNullable<GenerationEnv["fake"]> {
  const groups = new Map<string, Map<string, unknown[]>>();
  return (group, key, draw) => {
    let pools = groups.get(group);
    if (!pools) groups.set(group, (pools = new Map()));
    let pool = pools.get(key);
    if (!pool) pools.set(key, (pool = Array.from({ length: size }, draw)));
    return pool[Math.floor(random.next() * size)];
  };
}
const POOL_SIZE = 256;

const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
const UUID = Buffer.from("00000000-0000-4000-8000-000000000000", "latin1");
/** Where each of the 32 hex digits goes in the 36 characters. */
const UUID_SLOTS = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];

/**
 * A version 4 UUID from four draws of the seeded generator: random.uuid4() goes through a buffer
 * and a hex string per id, which dominated bulk generation. Written as bytes and read back as one
 * flat string (a concatenated one would keep its pieces, several times the memory, in every record).
 */
export function fastUuid4(random: Random): string {
  for (let word = 0; word < 4; word++) {
    let n = (random.next() * 4294967296) >>> 0;
    if (word === 1) n = ((n & 0xffff0fff) | 0x00004000) >>> 0;
    if (word === 2) n = ((n & 0x3fffffff) | 0x80000000) >>> 0;
    for (let digit = 0; digit < 8; digit++) UUID[UUID_SLOTS[word * 8 + digit] as number] = HEX_DIGITS[(n >>> (28 - 4 * digit)) & 0xf] as number;
  }
  return UUID.toString("latin1", 0, 36);
}

export interface GeneratedDeployment {
  deployment: Deployment;
  meta: DeploymentMeta;
  revisions: RevisionEntry[];
}

/**
 * `generate.deployments: {count}`: many coherent deployments, fast. json-schema-faker takes about
 * 2 ms a record and faker tens of microseconds a value, too slow for 100,000, so values come from
 * pools drawn once from the schema's enums and faker annotations (valuePools) and ids from the seeded
 * generator directly (docs/decisions/deployments.md). Every revision is settled (none is in flight).
 */
export function generateDeployments(
  base: GenerationEnv,
  options: { count: number; tenantId: string; before: number; takenNames: Set<string>; progress?: (done: number) => void },
): GeneratedDeployment[] {
  const { random } = base;
  const env: GenerationEnv = { ...base, fake: valuePools(random), uuid: () => fastUuid4(random) };
  const uuid = env.uuid as () => string;
  const sources = schemaEnum<DeploymentSource>("DeploymentSource").filter((s) => s !== "github" || env.repositories.length);
  const versions = Array.from({ length: 6 }, () => String(fakeProperty(random.faker, "Deployment", "image_version")));
  const tags = Array.from({ length: 8 }, () => random.uuid4());
  const out: GeneratedDeployment[] = [];
  for (let i = 0; i < options.count; i++) {
    // Start-up blocks while this runs (10,000 take seconds): let the CLI say how far it got.
    if (options.progress && i % 1000 === 0 && i > 0) options.progress(i);
    const source = random.pick(sources);
    const id = uuid();
    let name = `${String(fake(env, "Deployment", "name"))}-${i + 1}`.slice(0, 63);
    while (options.takenNames.has(name)) name = `${name.slice(0, 60)}-${random.int(0, 99)}`;
    options.takenNames.add(name);
    const createdAt = options.before - random.int(1, 700) * DAY_MS - random.int(0, DAY_MS - 1);
    const configs = coherentConfigs(env, source, id);
    const revisions = generatedRevisions(env, id, source, configs.source_revision_config, createdAt);
    const newest = revisions[0] as RevisionEntry;
    const status: DeploymentStatus = random.next() < 0.9 ? "READY" : random.pick(["UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const);
    out.push({
      deployment: {
        name,
        source,
        ...configs,
        secrets: distinctSecrets(env, random.int(0, 2)),
        secret_references: null,
        id,
        tenant_id: options.tenantId,
        created_at: createdAt,
        updated_at: newest.revision.updated_at,
        status,
        latest_revision_id: newest.revision.id,
        active_revision_id: revisions.find((r) => r.revision.status === "DEPLOYED")?.revision.id ?? null,
        image_version: random.pick(versions),
      },
      meta: {
        tag_value_ids: random.next() < 0.5 ? [random.pick(tags)] : [],
        remote_reconciled: random.next() < 0.25,
        revision_ids: revisions.map((r) => r.revision.id),
        fail_next_at: null,
      },
      revisions,
    });
  }
  return out;
}

/** Secrets are environment variables: one value per name. */
function distinctSecrets(env: GenerationEnv, count: number): Deployment["secrets"] {
  const secrets = new Map<string, string>();
  for (let tries = 0; secrets.size < count && tries < 10 * count; tries++) {
    const name = String(fake(env, "Secret", "name"));
    if (!secrets.has(name)) secrets.set(name, String(fake(env, "Secret", "value")));
  }
  return [...secrets].map(([name, value]) => ({ name, value }));
}

/** What each source builds a revision from; older revisions were built from another one of it. */
const ARTIFACT: Record<DeploymentSource, "repo_commit_sha" | "image_uri" | "source_tarball_path"> = {
  github: "repo_commit_sha",
  external_docker: "image_uri",
  internal_docker: "image_uri",
  internal_source: "source_tarball_path",
};

/** An older revision's configuration: the newest one's, but another commit, image or upload. */
export function olderRevisionConfig(random: Random, source: DeploymentSource, newest: ConfigObject): ConfigObject {
  const field = ARTIFACT[source];
  return { ...newest, [field]: field === "repo_commit_sha" ? random.hex(40) : fakeProperty(random.faker, "SourceRevisionConfig", field) };
}

/**
 * One to three settled revisions, newest first; the newest carries the deployment's configuration.
 * Each is built from its own commit, image or upload (a pooled value is drawn again if taken).
 */
function generatedRevisions(env: GenerationEnv, deploymentId: string, source: DeploymentSource, config: ConfigObject, createdAt: number): RevisionEntry[] {
  const { random } = env;
  const count = random.int(1, 3);
  const failures: RevisionStatus[] = SOURCE_RULES[source].builds ? ["BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED"] : ["DEPLOY_FAILED", "CREATE_FAILED"];
  const field = ARTIFACT[source];
  const built = new Set<unknown>([config[field]]);
  const out: RevisionEntry[] = [];
  for (let k = count - 1; k >= 0; k--) {
    const created = createdAt + k * 3_600_000;
    const status: RevisionStatus = k === count - 1 ? (random.next() < 0.85 ? "DEPLOYED" : random.pick(failures)) : random.pick(["DEPLOYED", "INTERRUPTED", "SKIPPED"] as const);
    let revisionConfig = config;
    if (k !== count - 1) {
      for (let tries = 0; tries < 20 && built.has(revisionConfig[field]); tries++) {
        revisionConfig = { ...config, [field]: field === "repo_commit_sha" ? random.hex(40) : fake(env, "SourceRevisionConfig", field) };
      }
      built.add(revisionConfig[field]);
    }
    out.push({
      deployment_id: deploymentId,
      remote_reconciled: false,
      revision: {
        id: (env.uuid as () => string)(),
        created_at: created,
        updated_at: created + random.int(5, 20) * 60_000,
        status,
        source,
        source_revision_config: revisionConfig,
      },
    });
  }
  return out;
}
