import type { Request } from "express";
import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { requireUuidPath } from "../http/validate.js";

/** Used when the fixtures name no tenant or organization (an empty mock still answers). */
export const FALLBACK_TENANT_ID = "00000000-0000-4000-8000-000000000001";
export const FALLBACK_ORGANIZATION_ID = "00000000-0000-4000-8000-000000000002";

/**
 * Workspaces and the organization, from the fixtures. Deployments are scoped by `X-Tenant-Id`
 * (DESIGN §2), falling back to the default tenant; OAuth providers belong to the organization.
 */
export class Tenancy {
  readonly organizationId: string;
  readonly defaultTenantId: string;
  readonly tenantIds: string[];

  constructor(_ctx: MockContext, fixtures: FixtureSet) {
    const tenants = fixtures.entries("tenants").map((e) => e.value as { id: string; default?: boolean });
    this.tenantIds = tenants.map((t) => t.id.toLowerCase());
    this.defaultTenantId = (tenants.find((t) => t.default) ?? tenants[0])?.id.toLowerCase() ?? FALLBACK_TENANT_ID;
    const org = fixtures.setting("organization_id");
    this.organizationId = typeof org?.value === "string" ? org.value.toLowerCase() : FALLBACK_ORGANIZATION_ID;
  }

  /**
   * The tenant a request acts in: its X-Tenant-Id header (a workspace UUID, any case), else the
   * default one. A header that is not a UUID is a 422 at ["header", "x-tenant-id"], as FastAPI
   * answers a UUID-typed header.
   */
  tenantOf(req: Request): string {
    const header = req.headers["x-tenant-id"];
    const value = (Array.isArray(header) ? header[0] : header)?.trim();
    return value ? requireUuidPath("x-tenant-id", value, "header") : this.defaultTenantId;
  }
}
