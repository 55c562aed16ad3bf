import type { ConfigObject, DeploymentSource } from "./deployments-store.js";

/** Deployment names (DESIGN §2): a lowercase letter, then lowercase letters, digits and hyphens. */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;

interface SourceRule {
  /** `source_config` fields that apply to the source; the others must be null. */
  config: readonly string[];
  /** `source_revision_config` fields that apply to the source. */
  revision: readonly string[];
  /** Fields a create request must set, as `<object>.<field>`. */
  required: readonly string[];
  /** Built from source (walks the build states) rather than deployed from an image. */
  builds: boolean;
  /** Hosted by the platform: the server owns `custom_url` (the mock's agent server for it). */
  hosted: boolean;
  /**
   * The `source_revision_config` field a revision is built from, which a create may leave out (with
   * the other required revision fields): the deployment then has no revision until a PATCH sets it.
   * The real CLI creates `internal_docker` and `internal_source` deployments with
   * `source_revision_config: {}`, then pushes its image (PATCH `image_uri`) or uploads its source
   * (PATCH `source_tarball_path` and `langgraph_config_path`) (control-plane-notes §4, §6.2).
   */
  firstRevisionWaitsFor?: string;
}

/** Which fields each source uses (control-plane-notes §6.2, the schema's field descriptions). */
export const SOURCE_RULES: Record<DeploymentSource, SourceRule> = {
  github: {
    config: ["integration_id", "repo_url", "deployment_type", "build_on_push", "custom_url", "install_command", "build_command"],
    revision: ["repo_ref", "langgraph_config_path", "repo_commit_sha"],
    required: ["source_config.integration_id", "source_config.repo_url", "source_revision_config.repo_ref", "source_revision_config.langgraph_config_path"],
    builds: true,
    hosted: true,
  },
  external_docker: {
    config: ["custom_url", "resource_spec", "listener_id", "listener_config"],
    revision: ["image_uri"],
    required: ["source_revision_config.image_uri"],
    builds: false,
    hosted: false,
  },
  internal_docker: {
    config: ["deployment_type", "custom_url"],
    revision: ["image_uri"],
    required: ["source_revision_config.image_uri"],
    builds: false,
    hosted: true,
    firstRevisionWaitsFor: "image_uri",
  },
  internal_source: {
    config: ["deployment_type", "custom_url", "install_command", "build_command"],
    revision: ["langgraph_config_path", "source_tarball_path"],
    required: ["source_revision_config.langgraph_config_path", "source_revision_config.source_tarball_path"],
    builds: true,
    hosted: true,
    firstRevisionWaitsFor: "source_tarball_path",
  },
};

/** Fields that cannot change once a deployment exists (notes §6.5), as `<object>.<field>` paths. */
export const IMMUTABLE_FIELDS = [
  "name",
  "source",
  "source_config.integration_id",
  "source_config.repo_url",
  "source_config.deployment_type",
  "source_config.listener_id",
  "source_config.listener_config.k8s_namespace",
] as const;

/** A rule a deployment's configuration breaks: the field (`<object>.<field>`) and the reason. */
export interface SourceProblem {
  field: string;
  reason: string;
}

/** How `sourceProblems` reads a configuration. */
export interface SourceCheck {
  /** False when no revision starts from it: the source's `firstRevisionWaitsFor` field may be unset. */
  startsRevision?: boolean;
  /**
   * The deployment's own source when the revision's differs (PATCH `revision_source`): its
   * `source_config` fields apply too, since the configuration stays the deployment's. The real CLI
   * moves one deployment between `internal_source` and `internal_docker` revisions this way.
   */
  deploymentSource?: DeploymentSource;
}

/**
 * Checks a deployment's configuration against its source: required fields set, fields of other
 * sources unset, no build-on-push for a tag. The reasons use the real service's wording
 * ("'source_revision_config.repo_ref' is required for 'github' source").
 */
export function sourceProblems(source: DeploymentSource, config: ConfigObject, revision: ConfigObject, check: SourceCheck = {}): SourceProblem[] {
  const rule = SOURCE_RULES[source];
  const problems: SourceProblem[] = [];
  const objects: Record<string, ConfigObject> = { source_config: config, source_revision_config: revision };
  // No revision starts yet: the revision fields are the PATCH's to supply.
  const waiting = check.startsRevision === false && rule.firstRevisionWaitsFor !== undefined;
  const configFields = check.deploymentSource ? [...rule.config, ...SOURCE_RULES[check.deploymentSource].config] : rule.config;
  for (const field of rule.required) {
    if (waiting && field.startsWith("source_revision_config.")) continue;
    const [object, key] = field.split(".") as [string, string];
    const value = objects[object]?.[key];
    if (value === null || value === undefined || value === "") problems.push({ field, reason: `'${field}' is required for '${source}' source` });
  }
  for (const [object, allowed] of [["source_config", configFields], ["source_revision_config", rule.revision]] as const) {
    for (const [key, value] of Object.entries(objects[object] ?? {})) {
      if (value !== null && value !== undefined && !allowed.includes(key)) {
        problems.push({ field: `${object}.${key}`, reason: `'${object}.${key}' is not applicable for '${source}' source` });
      }
    }
  }
  const ref = revision.repo_ref;
  if (config.build_on_push === true && typeof ref === "string" && ref.startsWith("refs/tags/")) {
    problems.push({
      field: "source_config.build_on_push",
      reason: "'source_config.build_on_push' must be false when 'source_revision_config.repo_ref' is a tag (refs/tags/...); tags are immutable",
    });
  }
  return problems;
}
