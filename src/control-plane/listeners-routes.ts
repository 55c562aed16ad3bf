import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { page } from "./deployments-query.js";
import type { Tenancy } from "./tenancy.js";
import type { Listener, ListenerCreateRequest, ListenerListQuery, ListenerPatchRequest } from "../schemas/types.gen.js";
import { TENANT_HEADER, type TenantHeader } from "./tenant-header.js";
import { declareCollection } from "../store/store.js";

const SCHEMA = "control-plane/listener.json#/$defs/";
const LISTENER = `${SCHEMA}Listener`;
const LISTENER_PATH = object({ listener_id: UUID });

/** A listener as stored: its times in epoch ms, formatted only by `listenerToWire`. */
export type StoredListener = Omit<Listener, "created_at" | "updated_at"> & { created_at: number; updated_at: number };

/** A listener and the workspace it belongs to (the record has no field for it). */
export interface ListenerEntry {
  tenant_id: string;
  listener: StoredListener;
}

/** The `Listener` wire form (schema control-plane/listener.json#/$defs/Listener). */
export function listenerToWire(l: StoredListener): Listener {
  return { ...l, created_at: formatTimestamp(l.created_at), updated_at: formatTimestamp(l.updated_at) };
}

/** The list query after validation: defaults filled in. */
type ListQuery = ListenerListQuery & { limit: number; offset: number };

/**
 * `/v2/listeners` (control-plane-notes §8): list (newest first), create, get, patch and delete, scoped
 * by X-Tenant-Id like deployments. A workspace whose fixture says `listeners: false` (no self-hosted
 * enterprise plan) is answered 403 on every route, with the spec's text.
 */
export function listenersRoutes(ctx: MockContext, tenancy: Tenancy): RouteSpec[] {
  const listeners = listenersIn(ctx);

  /** The request's workspace, once it is known to be allowed listeners. */
  const workspaceOf = (headers: TenantHeader): string => {
    const tenantId = tenancy.tenantOf(headers["x-tenant-id"]);
    if (tenancy.withoutListeners.has(tenantId)) throw controlPlaneErrors.listenersNotAllowed(tenantId);
    return tenantId;
  };
  const requireListener = (tenantId: string, id: string): StoredListener => {
    const entry = listeners.get(id);
    if (!entry || entry.tenant_id !== tenantId) throw controlPlaneErrors.listenerNotFound(id);
    return entry.listener;
  };

  return [
    route<{ query: ListQuery; headers: TenantHeader }>({
      name: "listeners.list",
      method: "GET",
      path: "/v2/listeners",
      query: `${SCHEMA}ListenerListQuery`,
      headers: TENANT_HEADER,
      responses: { 200: `${SCHEMA}ListenersList` },
      handler: ({ query, headers }) => {
        const tenantId = workspaceOf(headers);
        const own = [...listeners.values()].filter((e) => e.tenant_id === tenantId).map((e) => e.listener);
        // Newest first, ties by id, as deployments are listed.
        own.sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
        const { resources, offset } = page(own, undefined, query);
        return { resources: resources.map(listenerToWire), offset };
      },
    }),
    route<{ headers: TenantHeader; body: ListenerCreateRequest }>({
      name: "listeners.create",
      method: "POST",
      path: "/v2/listeners",
      headers: TENANT_HEADER,
      body: `${SCHEMA}ListenerCreateRequest`,
      responses: { 201: LISTENER },
      handler: ({ headers, body }) => {
        const tenantId = workspaceOf(headers);
        for (const entry of listeners.values()) {
          if (entry.tenant_id === tenantId && entry.listener.compute_id === body.compute_id) throw controlPlaneErrors.listenerExists(tenantId, body.compute_id);
        }
        const stamp = ctx.clock.now();
        const listener: StoredListener = {
          version: body.version ?? null,
          compute_type: body.compute_type,
          compute_id: body.compute_id,
          compute_config: { k8s_namespaces: body.compute_config.k8s_namespaces ?? null },
          id: ctx.random.uuid4(),
          created_at: stamp,
          updated_at: stamp,
        };
        listeners.set(listener.id, { tenant_id: tenantId, listener });
        return listenerToWire(listener);
      },
    }),
    route<{ params: { listener_id: string }; headers: TenantHeader }>({
      name: "listeners.get",
      method: "GET",
      path: "/v2/listeners/{listener_id}",
      params: LISTENER_PATH,
      headers: TENANT_HEADER,
      responses: { 200: LISTENER },
      handler: ({ params, headers }) => listenerToWire(requireListener(workspaceOf(headers), params.listener_id)),
    }),
    route<{ params: { listener_id: string }; headers: TenantHeader; body: ListenerPatchRequest }>({
      name: "listeners.update",
      method: "PATCH",
      path: "/v2/listeners/{listener_id}",
      params: LISTENER_PATH,
      headers: TENANT_HEADER,
      body: `${SCHEMA}ListenerPatchRequest`,
      responses: { 200: LISTENER },
      handler: ({ params, headers, body }) => {
        const tenantId = workspaceOf(headers);
        const current = requireListener(tenantId, params.listener_id);
        // Null means "leave as is", as for deployments' patch fields.
        const listener: StoredListener = {
          ...current,
          version: body.version ?? current.version ?? null,
          compute_config: body.compute_config ? { k8s_namespaces: body.compute_config.k8s_namespaces ?? null } : current.compute_config,
          updated_at: ctx.clock.now(),
        };
        listeners.set(listener.id, { tenant_id: tenantId, listener });
        return listenerToWire(listener);
      },
    }),
    route<{ params: { listener_id: string }; headers: TenantHeader }>({
      name: "listeners.delete",
      method: "DELETE",
      path: "/v2/listeners/{listener_id}",
      params: LISTENER_PATH,
      headers: TENANT_HEADER,
      responses: { 204: null },
      handler: ({ params, headers }) => {
        requireListener(workspaceOf(headers), params.listener_id);
        listeners.delete(params.listener_id);
      },
    }),
  ];
}

export const listenersIn = declareCollection<ListenerEntry>("listeners");
