import * as zlib from "node:zlib";
import type { MockContext } from "../context.js";
import { DEFAULT_BODY_LIMIT } from "../http/json-parser.js";
import { route, type RouteSpec } from "../http/route.js";

/**
 * Whether this Node reads zstd bodies (node:zlib has it from 22.15 on; body-parser uses it when it is
 * there). The mock advertises zstd only then, so a client never compresses with what it cannot read.
 */
export const ZSTD_AVAILABLE = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === "function";

/** body-parser's reading of a `limit` such as `1mb` or `512kb`, in bytes. */
export function limitBytes(limit: string = DEFAULT_BODY_LIMIT): number {
  const sized = /^(\d+(?:\.\d+)?) *(b|kb|mb|gb)?$/i.exec(limit.trim());
  if (!sized) return 1024 * 1024;
  const unit = { b: 0, kb: 1, mb: 2, gb: 3 }[((sized[2] ?? "b") as string).toLowerCase() as "b"];
  return Math.floor(1024 ** unit * parseFloat(sized[1] as string));
}

/**
 * `GET /info` (`InfoGetResponse`), public as in the spec: what the real service advertises to the
 * langsmith clients — the multipart run-ingest endpoint, gzip bodies (zstd where this Node reads it),
 * and batches no larger than the mock's body limit (the clients split their batches to fit). The
 * version is one the clients' compatibility checks accept.
 */
export function serverInfo(ctx: MockContext) {
  return {
    version: "0.18.0",
    git_sha: null,
    license_expiration_time: null,
    batch_ingest_config: {
      use_multipart_endpoint: true,
      scale_up_qsize_trigger: 1000,
      scale_up_nthreads_limit: 16,
      scale_down_nempty_trigger: 4,
      size_limit: 100,
      size_limit_bytes: limitBytes(ctx.options.bodyLimit),
    },
    instance_flags: { gzip_body_enabled: true, zstd_compression_enabled: ZSTD_AVAILABLE },
    customer_info: null,
  };
}

export function infoRoute(ctx: MockContext): RouteSpec {
  return route({
    name: "info.get",
    method: "GET",
    path: "/info",
    summary: "Server information (public)",
    responses: { 200: "tracing/info.json#/$defs/InfoGetResponse" },
    public: true,
    handler: () => serverInfo(ctx),
  });
}
