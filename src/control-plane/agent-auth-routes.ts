import { object, route, type RequestScope, type RouteSpec } from "../http/route.js";
import type { AgentAuth, AuthenticateRequest, CallbackInput } from "./agent-auth.js";
import { tokenEndpointFetch } from "./auth-token-exchange.js";
import { refuseIllFormedText } from "./errors.js";
import type { AuthWaitQuery, OAuthCallbackQuery, OAuthCallbackResult, OAuthFinalizeRequest, OAuthSetupQuery } from "../schemas/types.gen.js";

const SCHEMA = "control-plane/agent-auth.json#/$defs/";
const PROVIDER_PATH = object({ provider_id: { type: "string" } });
const RESULT = `${SCHEMA}OAuthCallbackResult`;

type CallbackQuery = OAuthCallbackQuery;

/**
 * The agent-auth flow (control-plane-notes §4): authenticate, the provider's redirect (GET callback,
 * the frontend-bridged POST callback, the GitHub App setup URL) and wait. The GET callback and the
 * setup URL are public: a browser arrives there from the provider's redirect, without the API key.
 */
export function agentAuthRoutes(auth: AgentAuth, allowOutbound?: readonly string[]): RouteSpec[] {
  const finish = async (input: CallbackInput, scope: RequestScope): Promise<OAuthCallbackResult> => {
    const { flow, token } = await auth.callback(input, scope.baseUrl, tokenEndpointFetch(scope, allowOutbound));
    return { status: "completed", provider_id: flow.provider_id, auth_id: flow.auth_id, token_id: token.id };
  };

  return [
    route<{ body: AuthenticateRequest }>({
      name: "auth.authenticate",
      method: "POST",
      path: "/v2/auth/authenticate",
      body: `${SCHEMA}AuthAuthenticateRequest`,
      responses: { 200: `${SCHEMA}AuthAuthenticateResponse` },
      handler: ({ body, scope }) => {
        // The scopes go into the authorization URL.
        refuseIllFormedText(body, ["scopes"]);
        return auth.authenticate(body, scope, tokenEndpointFetch(scope, allowOutbound));
      },
    }),
    route<{ params: { provider_id: string }; query: CallbackQuery }>({
      name: "auth.callback",
      method: "GET",
      path: "/v2/auth/callback/{provider_id}",
      params: PROVIDER_PATH,
      query: `${SCHEMA}OAuthCallbackQuery`,
      responses: { 200: RESULT },
      public: true,
      handler: ({ params, query, scope }) => finish({ providerId: params.provider_id, ...query }, scope),
    }),
    route<{ params: { provider_id: string }; body: OAuthFinalizeRequest }>({
      name: "auth.callback_finalize",
      method: "POST",
      path: "/v2/auth/callback/{provider_id}",
      params: PROVIDER_PATH,
      body: `${SCHEMA}OAuthFinalizeRequest`,
      responses: { 200: RESULT },
      handler: ({ params, body, scope }) => {
        // The code goes into the token request's form. (A query string cannot hold a lone surrogate.)
        refuseIllFormedText(body, ["code"]);
        return finish({ providerId: params.provider_id, code: body.code, state: body.state }, scope);
      },
    }),
    route<{ params: { provider_id: string }; query: OAuthSetupQuery }>({
      name: "auth.setup",
      method: "GET",
      path: "/v2/auth/setup/{provider_id}",
      params: PROVIDER_PATH,
      query: `${SCHEMA}OAuthSetupQuery`,
      responses: { 200: RESULT },
      public: true,
      handler: ({ params, query, scope }) => {
        // A GitHub App installation the user changed on GitHub: nothing to exchange.
        if (query.setup_action === "update" && query.code === undefined && query.error === undefined) {
          auth.provider(params.provider_id);
          return { status: "updated", provider_id: params.provider_id, auth_id: null, token_id: null } satisfies OAuthCallbackResult;
        }
        const { code, state, error, error_description } = query;
        return finish({ providerId: params.provider_id, code, state, error, error_description }, scope);
      },
    }),
    route<{ params: { auth_id: string }; query: Required<AuthWaitQuery> }>({
      name: "auth.wait",
      method: "GET",
      path: "/v2/auth/wait/{auth_id}",
      params: object({ auth_id: { type: "string" } }),
      query: `${SCHEMA}AuthWaitQuery`,
      responses: { 200: `${SCHEMA}AuthWaitResponse` },
      handler: ({ params, query, scope }) => auth.wait(params.auth_id, query.timeout, scope.signal),
    }),
  ];
}
