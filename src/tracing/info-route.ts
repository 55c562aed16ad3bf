import { route, type RouteSpec } from "../http/route.js";

/**
 * `GET /info` (`InfoGetResponse`), public as in the spec. `use_multipart_endpoint: false` keeps the
 * langsmith client's `createFeedback` on `POST /feedback` even when it is given a `traceId` (the mock
 * has no multipart run-ingest endpoint). The version is one the client's compatibility checks accept.
 */
export const SERVER_INFO = {
  version: "0.18.0",
  git_sha: null,
  license_expiration_time: null,
  batch_ingest_config: {
    use_multipart_endpoint: false,
    scale_up_qsize_trigger: 1000,
    scale_up_nthreads_limit: 16,
    scale_down_nempty_trigger: 4,
    size_limit: 100,
    size_limit_bytes: 20_971_520,
  },
  instance_flags: {},
  customer_info: null,
} as const;

export const infoRoute: RouteSpec = route({
  name: "info.get",
  method: "GET",
  path: "/info",
  summary: "Server information (public)",
  responses: { 200: "tracing/info.json#/$defs/InfoGetResponse" },
  public: true,
  handler: () => SERVER_INFO,
});
