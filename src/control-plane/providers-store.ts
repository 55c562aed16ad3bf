import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { Collection } from "../store/collection.js";
import { schemas } from "../schemas/registry.js";
import type { OAuthProvider as OAuthProviderRecord } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";
import { controlPlaneErrors } from "./errors.js";

export const PROVIDER_REF = "control-plane/oauth-provider.json#/$defs/OAuthProvider";

/**
 * A provider's fields the mock sends on in a URL, a header or a form (the authorization URL, the
 * callback URL, the token request, discovery): they must be well-formed Unicode text.
 */
export const SENT_ON = ["provider_id", "client_id", "client_secret", "auth_url", "token_url", "mcp_server_url"] as const;

/**
 * The `OAuthProvider` wire record (control-plane/oauth-provider.json). The schema marks four fields
 * optional; the mock's records always carry every field.
 */
export type OAuthProvider = Required<OAuthProviderRecord>;

/** A provider in the wire record's shape plus the secret: what a fixture entry completes to. */
export interface ProviderWithSecret extends OAuthProvider {
  client_secret: string | null;
}

/**
 * What the store keeps: the wire record's fields with the times as epoch ms (formatted only by
 * `providerResponse`), plus the secret, which no response ever carries.
 */
export type StoredProvider = Omit<ProviderWithSecret, "created_at" | "updated_at"> & { created_at: number; updated_at: number };

/**
 * The organization's OAuth providers, looked up by the caller-chosen `provider_id` slug (the path
 * parameter of `/v2/auth/providers/{provider_id}`), unique within an organization.
 */
export class ProviderStore {
  private readonly records: Collection<StoredProvider>;
  private sorted: { version: number; list: StoredProvider[] } | undefined;

  constructor(ctx: MockContext) {
    this.records = providersIn(ctx);
  }

  get(organizationId: string, providerId: string): StoredProvider | undefined {
    return this.records.get(keyOf(organizationId, providerId));
  }

  /** The provider, or the control plane's 404 naming it. */
  require(organizationId: string, providerId: string): StoredProvider {
    const found = this.get(organizationId, providerId);
    if (!found) throw controlPlaneErrors.providerNotFound(providerId);
    return found;
  }

  set(record: StoredProvider): StoredProvider {
    return this.records.set(keyOf(record.organization_id, record.provider_id), record);
  }

  delete(record: StoredProvider): void {
    this.records.delete(keyOf(record.organization_id, record.provider_id));
  }

  /** The organization's providers, oldest first (`created_at` ascending, then `id`); sorted once per change. */
  list(organizationId: string): StoredProvider[] {
    if (this.sorted?.version !== this.records.version) {
      const list = [...this.records.values()];
      list.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.sorted = { version: this.records.version, list };
    }
    return this.sorted.list.filter((p) => p.organization_id === organizationId);
  }
}

/** Organization ids are UUIDs (no "/"), so this key is unambiguous whatever the slug holds. */
function keyOf(organizationId: string, providerId: string): string {
  return `${organizationId}/${providerId}`;
}

let responseFields: string[] | undefined;

/** The wire form: exactly the schema's properties, in the schema's order — never `client_secret`. */
export function providerResponse(record: StoredProvider): OAuthProvider {
  responseFields ??= Object.keys(schemas().resolve(PROVIDER_REF).properties as object);
  const out: Record<string, unknown> = {};
  for (const field of responseFields) out[field] = (record as unknown as Record<string, unknown>)[field] ?? null;
  out.created_at = formatTimestamp(record.created_at);
  out.updated_at = formatTimestamp(record.updated_at);
  return out as unknown as OAuthProvider;
}

export const providersIn = declareCollection<StoredProvider>("oauth_providers");
