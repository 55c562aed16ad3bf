import { detailError } from "./http-error.js";
import { fastApiInvalid } from "./pydantic-issues.js";
import { openApiDocument } from "./openapi.js";
import type { Registrar } from "./registrar.js";
import { route } from "./route.js";
import type { ServiceModule } from "./service-module.js";

const VERSION = "0.1.0";
const OPENAPI_DOCUMENT = { type: "object", properties: { openapi: { const: "3.1.0" }, paths: { type: "object" } }, required: ["openapi", "paths"] };

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every simulated route, tagged by service, made from
 * the same declarations that serve them (built on first request, then kept). The admin API's own
 * document is `GET /_mock/openapi.json` (see adminDocsRoute).
 */
export function apiDocsModule(registrar: Registrar): ServiceModule {
  let document: unknown;
  return {
    name: "docs",
    prefixes: [""],
    cors: true,
    bodyError: () => detailError(400, "Bad Request"),
    invalid: fastApiInvalid,
    errorSchema: "common/errors.json#/$defs/HTTPError",
    routes: [
      route({
        name: "openapi.get",
        method: "GET",
        path: "/openapi.json",
        summary: "The OpenAPI document of every simulated route",
        responses: { 200: OPENAPI_DOCUMENT },
        handler: () =>
          (document ??= openApiDocument(
            registrar.routes.filter((r) => r.module.name !== "admin" && r.module.name !== "docs"),
            { title: "agent-platform-mock: simulated services", version: VERSION, description: "The control plane, agent server and tracing service as the mock serves them." },
          )),
      }),
    ],
  };
}

/** `GET /_mock/openapi.json`: the admin API's own document. */
export function adminDocsRoute(registrar: Registrar) {
  let document: unknown;
  return route({
    name: "admin.openapi",
    method: "GET",
    path: "/openapi.json",
    summary: "The OpenAPI document of the admin API",
    responses: { 200: OPENAPI_DOCUMENT },
    handler: () =>
      (document ??= openApiDocument(
        registrar.routes.filter((r) => r.module.name === "admin"),
        { title: "agent-platform-mock: admin API", version: VERSION, description: "The mock's own inspection and control API (/_mock)." },
      )),
  });
}
