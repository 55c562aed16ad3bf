import type { Store } from "./store.js";
import type { Collection } from "./collection.js";
import type { ThreadRecord } from "../agent-server/threads.js";
import type { RunRecord } from "../agent-server/runs.js";
import type { CheckpointRecord } from "../agent-server/checkpoints.js";
import type { StoreItemRecord } from "../agent-server/store-items.js";
import type { CronRecord } from "../agent-server/crons.js";
import type { AssistantRecord, AssistantVersionRecord } from "../agent-server/assistants.js";
import type { FeedbackToken } from "../tracing/feedback-tokens.js";
import type { FeedbackRecord } from "../tracing/feedback-records.js";
import type { FeedbackConfigRecord } from "../tracing/feedback-config-routes.js";
import type { FeedbackFormula } from "../tracing/feedback-formula-routes.js";
import type { StoredDeployment } from "../control-plane/deployments-store.js";
import type { InFlight, Transition } from "../control-plane/lifecycle.js";
import type { StoredIntegration } from "../control-plane/integrations-store.js";
import type { StoredProvider } from "../control-plane/providers-store.js";
import type { ListenerEntry } from "../control-plane/listeners-routes.js";
import type { SourceUpload } from "../control-plane/source-uploads.js";
import type { AgentConnection, AuthFlow, StoredToken } from "../control-plane/agent-auth-store.js";
import type { AuthorizationCode, FixtureClient, IssuedToken } from "../control-plane/mcp-fixture-oauth.js";

/**
 * Every collection of a mock's state, typed, in one place (`ctx.data.threads`, `ctx.data.runs`, …).
 * Services read and write their state only through these (or through the richer repositories built
 * on them, such as the control plane's DeploymentStore with its indexes), never by a collection name.
 * Each is created here with the reset scope it belongs to: "feedback" for what the tracing service
 * captured (reset("feedback")), "store" for everything else.
 */
export class Repositories {
  // Agent server
  readonly threads: Collection<ThreadRecord>;
  readonly runs: Collection<RunRecord>;
  /** A thread's checkpoints, oldest first, by thread id. */
  readonly checkpoints: Collection<readonly CheckpointRecord[]>;
  readonly storeItems: Collection<StoreItemRecord>;
  readonly crons: Collection<CronRecord>;
  readonly assistants: Collection<AssistantRecord>;
  /** An assistant's versions, oldest first, by assistant id. */
  readonly assistantVersions: Collection<readonly AssistantVersionRecord[]>;
  /** Default assistants (one per graph) that were deleted, so they are not made again. */
  readonly deletedDefaults: Collection<true>;
  // Tracing
  readonly feedbackTokens: Collection<FeedbackToken>;
  readonly feedback: Collection<FeedbackRecord>;
  readonly feedbackConfigs: Collection<FeedbackConfigRecord>;
  readonly feedbackFormulas: Collection<FeedbackFormula>;
  // Control plane
  /** Each deployment with its metadata and revisions. */
  readonly deployments: Collection<StoredDeployment>;
  /** Revisions whose lifecycle is still moving on the mock's clock. */
  readonly deploymentLifecycles: Collection<InFlight>;
  /** Each revision's status transitions, by revision id (build and deploy logs). */
  readonly revisionHistory: Collection<readonly Transition[]>;
  readonly integrations: Collection<StoredIntegration>;
  readonly providers: Collection<StoredProvider>;
  readonly listeners: Collection<ListenerEntry>;
  readonly sourceUploads: Collection<SourceUpload>;
  readonly authTokens: Collection<StoredToken>;
  readonly authFlows: Collection<AuthFlow>;
  readonly agentConnections: Collection<AgentConnection>;
  // The fixture MCP servers' OAuth
  readonly mcpClients: Collection<FixtureClient>;
  readonly mcpCodes: Collection<AuthorizationCode>;
  readonly mcpTokens: Collection<IssuedToken>;

  constructor(store: Store) {
    this.threads = store.collection("threads");
    this.runs = store.collection("runs");
    this.checkpoints = store.collection("thread_checkpoints");
    this.storeItems = store.collection("store_items");
    this.crons = store.collection("crons");
    this.assistants = store.collection("assistants");
    this.assistantVersions = store.collection("assistant_versions");
    this.deletedDefaults = store.collection("deleted_default_assistants");
    this.feedbackTokens = store.collection("feedback_tokens");
    this.feedback = store.collection("feedback", "feedback");
    this.feedbackConfigs = store.collection("feedback_configs");
    this.feedbackFormulas = store.collection("feedback_formulas");
    this.deployments = store.collection("deployments");
    this.deploymentLifecycles = store.collection("deployment_lifecycles");
    this.revisionHistory = store.collection("revision_history");
    this.integrations = store.collection("integrations");
    this.providers = store.collection("oauth_providers");
    this.listeners = store.collection("listeners");
    this.sourceUploads = store.collection("source_uploads");
    this.authTokens = store.collection("auth_tokens");
    this.authFlows = store.collection("auth_flows");
    this.agentConnections = store.collection("agent_connections");
    this.mcpClients = store.collection("mcp_fixture_clients");
    this.mcpCodes = store.collection("mcp_fixture_codes");
    this.mcpTokens = store.collection("mcp_fixture_tokens");
  }
}
