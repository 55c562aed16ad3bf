import type { FixtureSet } from "../store/fixtures.js";

/** Used when the fixtures name no tenant or organization (an empty mock still answers). */
export const FALLBACK_TENANT_ID = "00000000-0000-4000-8000-000000000001";
export const FALLBACK_ORGANIZATION_ID = "00000000-0000-4000-8000-000000000002";

/**
 * Workspaces and the organization, from the fixtures (the first step of the seed phase). Deployments
 * are scoped by `X-Tenant-Id` (DESIGN §2), falling back to the default tenant; OAuth providers belong
 * to the organization.
 */
export class Tenancy {
  organizationId = FALLBACK_ORGANIZATION_ID;
  defaultTenantId = FALLBACK_TENANT_ID;
  tenantIds: string[] = [];
  /** Workspaces whose plan has no listeners (fixture `listeners: false`): every listener route is 403 there. */
  withoutListeners = new Set<string>();

  /** Reads the `tenants` section and the `organization_id` setting. */
  seed(fixtures: FixtureSet): void {
    const tenants = fixtures.entries("tenants").map((e) => e.value as { id: string; default?: boolean; listeners?: boolean });
    // Fixture ids are data as written, not validated request input: stored lowercase like every UUID.
    this.tenantIds = tenants.map((t) => t.id.toLowerCase());
    this.withoutListeners = new Set(tenants.filter((t) => t.listeners === false).map((t) => t.id.toLowerCase()));
    this.defaultTenantId = (tenants.find((t) => t.default) ?? tenants[0])?.id.toLowerCase() ?? FALLBACK_TENANT_ID;
    const org = fixtures.setting("organization_id");
    this.organizationId = typeof org?.value === "string" ? org.value.toLowerCase() : FALLBACK_ORGANIZATION_ID;
  }

  /**
   * The tenant a request acts in: its validated `X-Tenant-Id` header (a workspace UUID; the route's
   * header schema answers a non-UUID with a 422 at ["header", "x-tenant-id"]), else the default one.
   */
  tenantOf(header: string | undefined): string {
    return header ?? this.defaultTenantId;
  }
}
