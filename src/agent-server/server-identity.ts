/**
 * What the simulated server says of itself: `/info` and the `langgraph_*` keys the real server puts
 * into every run's config metadata (vendored `stream.py`), which LangGraph copies into each
 * checkpoint's metadata. The versions are those of the vendored server the notes were read from.
 */
export const SERVER_IDENTITY = {
  /** `langgraph-api` (the server). */
  apiVersion: "0.5.23",
  /** The `langgraph` library it runs graphs with. */
  langgraphVersion: "0.6.7",
  /** `langgraph_host`: a deployment of the hosted platform (`LANGSMITH_LANGGRAPH_API_VARIANT=cloud`). */
  host: "saas",
  /** `langgraph_plan`: the hosted platform's deployments have the licensed features. */
  plan: "enterprise",
} as const;

/**
 * The server keys of a run's metadata. `langgraph_api_url` is the server's `LANGGRAPH_API_URL`
 * setting, unset here, so it is left out as the real server leaves a None out of checkpoint metadata.
 */
export const SERVER_RUN_METADATA: Readonly<Record<string, string>> = {
  langgraph_version: SERVER_IDENTITY.langgraphVersion,
  langgraph_api_version: SERVER_IDENTITY.apiVersion,
  langgraph_plan: SERVER_IDENTITY.plan,
  langgraph_host: SERVER_IDENTITY.host,
};
