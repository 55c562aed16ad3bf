import type { MockContext } from "../../context.js";
import { schemas } from "../../schemas/registry.js";
import { readPart } from "../request-input.js";
import { HttpRequestScope } from "../request-scope.js";
import type { RequestScope, RouteSpec } from "../route.js";
import type { RequestProblem } from "../service-module.js";
import { queryOf, type Exchange, type MountedRoute, type Stage } from "../exchange.js";

/**
 * Validates path, query, headers and body together **on a copy** (the request as sent stays intact
 * for the journal): query and header text converted as pydantic does, defaults filled, `format: uuid`
 * lowercased. Every problem is answered at once, in the route's or module's style.
 */
export function validateInput(ctx: MockContext, inject: RequestScope["inject"]): Stage {
  return (x) => {
    const route = x.route as MountedRoute;
    const { module, spec } = route;
    const problems: RequestProblem[] = [];
    const read = (part: RequestProblem["part"], schema: RouteSpec["params"], raw: unknown): unknown => {
      if (schema === undefined) return part === "body" ? raw : {};
      const { value, problem } = readPart(part, schema, raw);
      if (problem) problems.push(problem);
      return value;
    };
    const own: Record<string, string> = {};
    const mount: Record<string, string> = {};
    for (const [name, value] of Object.entries(x.params ?? {})) (route.mountNames.has(name) ? mount : own)[name] = value;
    const params = read("path", spec.params, own) as Record<string, string>;
    const rawQuery: unknown = spec.query !== undefined || module.strictQuery ? queryOf(x) : undefined;
    const query = read("query", spec.query, rawQuery);
    if (module.strictQuery) {
      const declared = Object.keys((spec.query !== undefined && (schemas().resolve(spec.query).properties as object)) || {});
      const unknown = Object.keys(rawQuery as object).filter((k) => !declared.includes(k));
      if (unknown.length) problems.push({ part: "query", schema: spec.query ?? {}, data: rawQuery, errors: [], unknown });
    }
    const headers = read("header", spec.headers, x.req.headers);
    let body: unknown = x.req.body;
    if (spec.body !== undefined) {
      if (body === undefined && spec.emptyBody === undefined) problems.push({ part: "body", schema: spec.body, data: undefined, errors: [], missing: true });
      else body = read("body", spec.body, body === undefined ? spec.emptyBody : body);
    }
    if (problems.length) throw (spec.invalid ?? module.invalid)(problems);
    x.input = { params, query: query as Record<string, unknown>, headers: headers as Record<string, unknown>, body, scope: new HttpRequestScope(x as Exchange, ctx, mount, inject) };
  };
}
