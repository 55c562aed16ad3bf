import { detailError } from "../http-error.js";
import type { RouteMatcher } from "../route-matcher.js";
import type { Exchange, RouteTarget } from "../exchange.js";

/**
 * Finds what serves the request (a route or a CORS preflight) and its path parameters. A path no route
 * serves is 404 `{"detail":"Not Found"}`; a path served for other methods is 405 `{"detail":"Method
 * Not Allowed"}` with an Allow header, as FastAPI/Starlette answer them.
 */
export function match(x: Exchange, routes: RouteMatcher<RouteTarget>): RouteTarget {
  const found = routes.match(x.req.method, x.req.path);
  if (!found) throw notServed(x, routes);
  x.params = found.params;
  if ("spec" in found.value) x.route = found.value;
  return found.value;
}

/** 405 with Allow when the path is served for other methods, else 404. */
export function notServed(x: Exchange, routes: RouteMatcher<RouteTarget>) {
  const allowed = routes.allowedMethods(x.req.path);
  return allowed.length ? detailError(405, "Method Not Allowed", { Allow: allowed.join(", ") }) : detailError(404, "Not Found");
}
