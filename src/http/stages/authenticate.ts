import { corsHeaders, type CorsPolicy } from "../cors.js";
import { reply } from "../route.js";
import type { ServiceModule } from "../service-module.js";
import type { Stage } from "../exchange.js";

/**
 * CORS (when the route allows browsers): its headers go on every answer of the request, and a
 * preflight is answered here, before any API key is asked for.
 */
export function cors(policy: CorsPolicy): Stage {
  return (x) => {
    const found = corsHeaders(policy, x.req);
    if (!found) return;
    Object.assign(x.headers, found.headers);
    if (found.preflight) x.answer = { value: reply(200) };
  };
}

/** The module's authentication (API key or admin token): its refusal is the answer. */
export function authenticate(module: ServiceModule): Stage {
  return (x) => {
    const refusal = module.authenticate?.(x.req.headers);
    if (refusal) throw refusal;
  };
}
