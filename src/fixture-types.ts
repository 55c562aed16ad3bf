import type {
  Deployment,
  DeploymentFixture,
  FixtureFile,
  Integration,
  McpServer,
  OAuthProvider,
  Repository,
  Revision,
  RevisionFixture,
} from "./schemas/types.gen.js";

// The types of an inline fixture document (a fixture file's content, docs/fixtures.md), built from the
// generated schema types. fixture-file.json leaves the section entries open because each section's
// entries are checked field by field against their resource schemas after generation fills the
// fields left out; these types say the same thing to the compiler: every field of the resource, each
// one optional, plus the section's fixture-only keys.

/** Every field optional, at every depth: a fixture names only the fields a test cares about. */
export type DeepPartial<T> = T extends readonly (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** The declared keys of a type, without its index signature. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** A `revisions` entry of a deployment fixture: Revision fields plus fixtures/deployment-fixture.json's RevisionFixture keys. */
export type RevisionFixtureEntry = DeepPartial<Revision> & Known<RevisionFixture>;

/** A `deployments` entry: Deployment fields plus fixtures/deployment-fixture.json's DeploymentFixture keys. */
export type DeploymentFixtureEntry = DeepPartial<Deployment> & Omit<Known<DeploymentFixture>, "revisions"> & { revisions?: RevisionFixtureEntry[] };

/** An `oauth_providers` entry: OAuthProvider fields plus a secret that is stored but never returned. */
export type OAuthProviderFixtureEntry = DeepPartial<OAuthProvider> & { client_secret?: string | null };

/** An `integrations` entry: Integration fields, its kind (default github) and its repositories. */
export type IntegrationFixtureEntry = DeepPartial<Integration> & { kind?: "github" | "forge"; repositories?: DeepPartial<Repository>[] };

/** A `mcp_servers` entry (fixtures/mcp-server.json). */
export type McpServerFixtureEntry = McpServer;

/** A fixture file's content, as `fixtures` accepts it inline (`createApp({ fixtures: [doc] })`). */
export type FixtureDocument = Omit<FixtureFile, "oauth_providers" | "mcp_servers" | "integrations" | "deployments"> & {
  oauth_providers?: OAuthProviderFixtureEntry[];
  mcp_servers?: McpServerFixtureEntry[];
  integrations?: IntegrationFixtureEntry[];
  deployments?: DeploymentFixtureEntry[];
};
