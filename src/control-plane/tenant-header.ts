import { object, UUID } from "../http/route.js";

/**
 * `X-Tenant-Id`: the workspace a deployment request acts in (DESIGN §2). Optional; a value that is
 * not a UUID is FastAPI's 422 at ["header", "x-tenant-id"], and a UUID of any case is read lowercase.
 */
export const TENANT_HEADER = object({ "x-tenant-id": UUID }, []);

export interface TenantHeader {
  "x-tenant-id"?: string;
}
