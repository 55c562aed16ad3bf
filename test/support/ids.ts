/** Ids the bundled fixtures and many tests share, named for what they are. */
export const IDS = {
  /** The default tenant (workspace) of the bundled fixtures. */
  productionTenant: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  /** A well-formed UUID that names nothing. */
  missing: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f",
  /** The default assistant of the graph "agent": uuid5("agent", the real server's namespace). */
  agentAssistant: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
} as const;
