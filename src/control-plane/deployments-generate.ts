import type { Faker } from "@faker-js/faker";
import { formatTimestamp } from "../core/clock.js";
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
  const { random } = env;
  const faker = random.faker;
  const rule = SOURCE_RULES[source];
  const repo = env.repositories.length ? random.pick(env.repositories) : undefined;
  const tag = random.next() < 0.15 ? `refs/tags/v${faker.system.semver()}` : undefined;
  // Fields that must point at something real; they win over the draft (a fixture's own values win over both).
  const linked: ConfigObject = {
    integration_id: repo?.host_integration_id ?? null,
    repo_url: repo?.url ?? fakeProperty(faker, "SourceConfig", "repo_url"),
    repo_ref: tag ?? repo?.default_branch ?? fakeProperty(faker, "SourceRevisionConfig", "repo_ref"),
    ...(rule.hosted ? { custom_url: agentUrl(env.baseUrl, id) } : {}),
  };
  const fresh: Record<string, () => unknown> = {
    deployment_type: () => random.pick(schemaEnum("DeploymentType")),
    build_on_push: () => !tag && random.next() < 0.5,
    custom_url: () => fakeProperty(faker, "SourceConfig", "custom_url"),
    resource_spec: () => ({
      min_scale: random.int(1, 2),
      max_scale: random.int(2, 10),
      cpu: fakeProperty(faker, "ResourceSpec", "cpu"),
      memory_mb: fakeProperty(faker, "ResourceSpec", "memory_mb"),
    }),
    listener_id: () => random.uuid4(),
    listener_config: () => ({ k8s_namespace: `${faker.internet.domainWord()}-agents` }),
    // JS projects only: most deployments leave the commands to autodetection.
    install_command: () => (random.next() < 0.3 ? fakeProperty(faker, "SourceConfig", "install_command") : null),
    build_command: () => (random.next() < 0.3 ? fakeProperty(faker, "SourceConfig", "build_command") : null),
    langgraph_config_path: () => fakeProperty(faker, "SourceRevisionConfig", "langgraph_config_path"),
    image_uri: () => fakeProperty(faker, "SourceRevisionConfig", "image_uri"),
    source_tarball_path: () => fakeProperty(faker, "SourceRevisionConfig", "source_tarball_path"),
    repo_commit_sha: () => fakeProperty(faker, "SourceRevisionConfig", "repo_commit_sha"),
  };
  const fill = (def: "SourceConfig" | "SourceRevisionConfig", applies: readonly string[], given: ConfigObject | undefined) => {
    const out: ConfigObject = {};
    for (const key of schemaKeys(def)) {
      out[key] = !applies.includes(key) ? null : key in linked ? linked[key] : (given?.[key] ?? fresh[key]?.() ?? null);
    }
    return out;
  };
  const config = fill("SourceConfig", rule.config, draft.source_config);
  const revision = fill("SourceRevisionConfig", rule.revision, draft.source_revision_config);
  if (typeof revision.repo_ref === "string" && revision.repo_ref.startsWith("refs/tags/")) config.build_on_push = false;
  return { source_config: config, source_revision_config: revision };
}

export interface GeneratedDeployment {
  deployment: Deployment;
  meta: DeploymentMeta;
  revisions: RevisionEntry[];
}

/**
 * `generate.deployments: {count}`: many coherent deployments, fast. json-schema-faker takes about
 * 2 ms a record, too slow for 10,000, so values come from the schema's enums and faker annotations
 * directly (docs/decisions/deployments.md). Every revision is settled (none is in flight).
 */
export function generateDeployments(
  env: GenerationEnv,
  options: { count: number; tenantId: string; before: number; takenNames: Set<string>; progress?: (done: number) => void },
): GeneratedDeployment[] {
  const { random } = env;
  const faker = random.faker;
  const sources = schemaEnum<DeploymentSource>("DeploymentSource").filter((s) => s !== "github" || env.repositories.length);
  const versions = Array.from({ length: 6 }, () => String(fakeProperty(faker, "Deployment", "image_version")));
  const tags = Array.from({ length: 8 }, () => random.uuid4());
  const out: GeneratedDeployment[] = [];
  for (let i = 0; i < options.count; i++) {
    // Start-up blocks while this runs (10,000 take seconds): let the CLI say how far it got.
    if (options.progress && i % 1000 === 0 && i > 0) options.progress(i);
    const source = random.pick(sources);
    const id = random.uuid4();
    let name = `${String(fakeProperty(faker, "Deployment", "name"))}-${i + 1}`.slice(0, 63);
    while (options.takenNames.has(name)) name = `${name.slice(0, 60)}-${random.int(0, 99)}`;
    options.takenNames.add(name);
    const createdAt = options.before - random.int(1, 700) * DAY_MS - random.int(0, DAY_MS - 1);
    const configs = coherentConfigs(env, source, id);
    const revisions = generatedRevisions(random, source, configs.source_revision_config, createdAt);
    const newest = revisions[0] as RevisionEntry;
    const status: DeploymentStatus = random.next() < 0.9 ? "READY" : random.pick(["UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const);
    out.push({
      deployment: {
        name,
        source,
        ...configs,
        secrets: distinctSecrets(faker, random.int(0, 2)),
        secret_references: null,
        id,
        tenant_id: options.tenantId,
        created_at: formatTimestamp(createdAt),
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
      revisions: revisions.map((r) => ({ ...r, deployment_id: id })),
    });
  }
  return out;
}

/** Secrets are environment variables: one value per name. */
function distinctSecrets(faker: Faker, count: number): Deployment["secrets"] {
  const secrets = new Map<string, string>();
  for (let tries = 0; secrets.size < count && tries < 10 * count; tries++) {
    const name = String(fakeProperty(faker, "Secret", "name"));
    if (!secrets.has(name)) secrets.set(name, String(fakeProperty(faker, "Secret", "value")));
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

/** One to three settled revisions, newest first; the newest carries the deployment's configuration. */
function generatedRevisions(random: Random, source: DeploymentSource, config: ConfigObject, createdAt: number): RevisionEntry[] {
  const count = random.int(1, 3);
  const failures: RevisionStatus[] = SOURCE_RULES[source].builds ? ["BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED"] : ["DEPLOY_FAILED", "CREATE_FAILED"];
  const out: RevisionEntry[] = [];
  for (let k = count - 1; k >= 0; k--) {
    const created = createdAt + k * 3_600_000;
    const status: RevisionStatus = k === count - 1 ? (random.next() < 0.85 ? "DEPLOYED" : random.pick(failures)) : random.pick(["DEPLOYED", "INTERRUPTED", "SKIPPED"] as const);
    out.push({
      deployment_id: "",
      remote_reconciled: false,
      revision: {
        id: random.uuid4(),
        created_at: formatTimestamp(created),
        updated_at: formatTimestamp(created + random.int(5, 20) * 60_000),
        status,
        source,
        source_revision_config: k === count - 1 ? config : olderRevisionConfig(random, source, config),
      },
    });
  }
  return out;
}
