import type { MockContext } from "../context.js";
import { reply, route, type RouteSpec } from "../http/route.js";
import type { StoreDeleteRequest, StoreGetQuery, StoreListNamespacesRequest, StorePutRequest, StoreSearchRequest } from "../schemas/types.gen.js";
import { agentErrors } from "./errors.js";
import { errors } from "./route-schemas.js";
import { ItemStore, itemResponse, parseNamespace } from "./store-items.js";

const STORE = "agent-server/store.json#/$defs/";

/** `/store/items` (put, get, delete), `/store/items/search`, `/store/namespaces`: the cross-thread store. */
export function storeRoutes(ctx: MockContext): RouteSpec[] {
  const store = new ItemStore(ctx);
  return [
    route<{ body: StorePutRequest }>({
      name: "store.put",
      method: "PUT",
      path: "/store/items",
      body: `${STORE}StorePutRequest`,
      responses: { 204: null, ...errors(422) },
      handler: ({ body }) => {
        if (!store.ttlFits(body.ttl ?? null)) throw agentErrors.storeTtlOutOfRange(body.ttl as number);
        store.put(body.namespace, body.key, body.value, body.ttl ?? null, body.index ?? null);
        return reply(204);
      },
    }),
    route<{ query: StoreGetQuery }>({
      name: "store.get",
      method: "GET",
      path: "/store/items",
      query: `${STORE}StoreGetQuery`,
      // [real] a missing (or expired) item is `200 null` on both servers (conformance note 30).
      responses: { 200: `${STORE}StoreItemOrNull`, ...errors(422) },
      handler: ({ query }) => {
        // [real] the store refreshes TTLs on read unless told not to.
        const item = store.get(parseNamespace(query.namespace), query.key, query.refresh_ttl ?? true);
        return item ? itemResponse(item) : null;
      },
    }),
    route<{ body: StoreDeleteRequest }>({
      name: "store.delete",
      method: "DELETE",
      path: "/store/items",
      body: `${STORE}StoreDeleteRequest`,
      responses: { 204: null, ...errors(422) },
      handler: ({ body }) => {
        store.delete(body.namespace ?? [], body.key);
        return reply(204);
      },
    }),
    route<{ body: StoreSearchRequest & { limit: number; offset: number } }>({
      name: "store.search",
      method: "POST",
      path: "/store/items/search",
      body: `${STORE}StoreSearchRequest`,
      emptyBody: {},
      responses: { 200: `${STORE}StoreSearchResponse`, ...errors(422) },
      handler: ({ body }) => ({
        items: store
          .search(body.namespace_prefix ?? [], body.filter ?? {}, body.query ?? null, body.limit, body.offset, body.refresh_ttl ?? true)
          .map(itemResponse),
      }),
    }),
    route<{ body: StoreListNamespacesRequest & { limit: number; offset: number } }>({
      name: "store.namespaces",
      method: "POST",
      path: "/store/namespaces",
      body: `${STORE}StoreListNamespacesRequest`,
      emptyBody: {},
      responses: { 200: `${STORE}StoreNamespacesResponse`, ...errors(422) },
      handler: ({ body }) => ({ namespaces: store.namespaces(body.prefix, body.suffix, body.max_depth, body.limit, body.offset) }),
    }),
  ];
}
