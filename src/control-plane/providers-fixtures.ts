import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { deepMerge, getOwn, isWellFormed, omit } from "../core/json.js";
import type { Random } from "../core/random.js";
import type { FixtureSet } from "../store/fixtures.js";
import { fakerFor, generateRecord } from "../store/generate.js";
import { PROVIDER_REF, SENT_ON, type ProviderStore, type ProviderWithSecret, type StoredProvider } from "./providers-store.js";
import type { Tenancy } from "./tenancy.js";

/** Keys a provider fixture may carry besides the schema's: stored, never returned. */
const FIXTURE_ONLY = ["client_secret"];
/** Fields completeProvider sets itself: never drawn from the schema. */
const SET_BY_STEP = ["organization_id", "provider_id", "code_challenge_method", "provider_type", "mcp_server_url", "is_dynamic_client", "created_at", "updated_at"];

/** `provider_type` values the create request accepts (OAuthProviderCreateRequest). */
const PROVIDER_TYPES = ["microsoft", "salesforce", "slack"];

/** Real endpoints of well-known providers, so generated records look like the provider they name. */
const KNOWN_ENDPOINTS: Record<string, { auth_url: string; token_url: string }> = {
  github: { auth_url: "https://github.com/login/oauth/authorize", token_url: "https://github.com/login/oauth/access_token" },
  google: { auth_url: "https://accounts.google.com/o/oauth2/v2/auth", token_url: "https://oauth2.googleapis.com/token" },
  slack: { auth_url: "https://slack.com/oauth/v2/authorize", token_url: "https://slack.com/api/oauth.v2.access" },
  microsoft: {
    auth_url: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
    token_url: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
  },
  salesforce: { auth_url: "https://login.salesforce.com/services/oauth2/authorize", token_url: "https://login.salesforce.com/services/oauth2/token" },
  notion: { auth_url: "https://api.notion.com/v1/oauth/authorize", token_url: "https://api.notion.com/v1/oauth/token" },
  linear: { auth_url: "https://linear.app/oauth/authorize", token_url: "https://api.linear.app/oauth/token" },
};

const DAY_MS = 86_400_000;

/**
 * Seeds the `oauth_providers` fixture section and `generate.oauth_providers.count` extra records,
 * drawing only from `random` (the step's own generator). Fields an entry leaves out are generated
 * from the schema (seeded per entry) and made coherent: the organization is the fixtures'
 * organization, timestamps lie before the clock's start, URLs and `provider_type` fit the provider's
 * name, and an entry with `mcp_server_url` is a dynamic PKCE client. Every record is checked against
 * the schema; problems are reported with file and pointer.
 */
export function seedProviders(ctx: MockContext, fixtures: FixtureSet, tenancy: Tenancy, store: ProviderStore, random: Random): void {
  const count = getOwn(getOwn(fixtures.setting("generate")?.value, "oauth_providers"), "count");
  const total = typeof count === "number" ? count : 0;
  const entries = fixtures.entries("oauth_providers");
  const slugs = new SlugAllocator(entries.map((e) => e.value.provider_id).filter((v): v is string => typeof v === "string"));
  const seen = new Map<string, string>();

  for (const entry of entries) {
    const record = completeProvider(ctx, random, tenancy, slugs, entry.value, `oauth_providers/${entry.index}`);
    const secret = getOwn(entry.value, "client_secret");
    if (secret !== undefined && secret !== null && typeof secret !== "string") {
      fixtures.problem(entry, `must be string or null; got ${JSON.stringify(secret)}`, "/client_secret");
    }
    if (!fixtures.check(entry, PROVIDER_REF, omit(record as unknown as Record<string, unknown>, FIXTURE_ONLY))) continue;
    const illFormed = SENT_ON.filter((field) => typeof record[field] === "string" && !isWellFormed(record[field]));
    // Not quoted: the field may be the secret.
    for (const field of illFormed) fixtures.problem(entry, "must be well-formed Unicode text: it holds a lone surrogate", `/${field}`);
    if (illFormed.length) continue;
    const key = `${record.organization_id}/${record.provider_id}`;
    const first = seen.get(key);
    if (first) {
      fixtures.problem(entry, `duplicate provider_id ${JSON.stringify(record.provider_id)} (first at ${first})`, "/provider_id");
      continue;
    }
    seen.set(key, `${entry.file}#${entry.pointer}`);
    store.set(toStored(record));
  }

  for (let i = 0; i < total; i++) store.set(toStored(completeProvider(ctx, random, tenancy, slugs, {}, `oauth_providers/generated/${i}`)));
}

/** A fixture entry completed into a wire-shaped record (not yet checked against the schema, not yet stored). */
function completeProvider(ctx: MockContext, random: Random, tenancy: Tenancy, slugs: SlugAllocator, given: Record<string, unknown>, label: string): ProviderWithSecret {
  const faker = fakerFor(random, label);
  const generated = generateRecord(PROVIDER_REF, faker, [...SET_BY_STEP, ...Object.keys(given)]);
  const name = typeof given.name === "string" ? given.name : String(generated.name);
  const slug = slugify(name);
  const mcpServerUrl = typeof given.mcp_server_url === "string" ? given.mcp_server_url : null;
  const dynamic = typeof given.is_dynamic_client === "boolean" ? given.is_dynamic_client : mcpServerUrl !== null;
  const usesPkce = typeof given.uses_pkce === "boolean" ? given.uses_pkce : dynamic || Boolean(generated.uses_pkce);
  const endpoints = mcpServerUrl ? mcpEndpoints(mcpServerUrl) : KNOWN_ENDPOINTS[slug];

  const now = ctx.clock.now();
  const created = typeof given.created_at === "string" ? Date.parse(given.created_at) : now - faker.number.int({ min: 30 * DAY_MS, max: 400 * DAY_MS });
  const updated = Math.min(now, created + faker.number.int({ min: 0, max: 20 * DAY_MS }));

  const defaults: ProviderWithSecret = {
    id: String(generated.id),
    organization_id: tenancy.organizationId,
    provider_id: typeof given.provider_id === "string" ? given.provider_id : slugs.allocate(slug || "provider"),
    name,
    client_id: String(generated.client_id),
    auth_url: endpoints?.auth_url ?? String(generated.auth_url),
    token_url: endpoints?.token_url ?? String(generated.token_url),
    uses_pkce: usesPkce,
    code_challenge_method: "S256",
    provider_type: PROVIDER_TYPES.includes(slug) ? slug : null,
    mcp_server_url: mcpServerUrl,
    // A public client ("none") only makes sense for a dynamic PKCE client; others authenticate with their secret.
    token_endpoint_auth_method: dynamic ? "none" : generated.token_endpoint_auth_method === "none" ? "client_secret_post" : String(generated.token_endpoint_auth_method),
    is_dynamic_client: dynamic,
    created_at: formatTimestamp(Number.isNaN(created) ? now : created),
    updated_at: formatTimestamp(Number.isNaN(created) ? now : updated),
    client_secret: dynamic ? null : faker.string.alphanumeric(40),
  };
  return deepMerge(defaults, given);
}

/** Where an MCP server's own authorization endpoints usually are (its origin's /authorize and /token). */
function mcpEndpoints(mcpServerUrl: string): { auth_url: string; token_url: string } | undefined {
  if (!URL.canParse(mcpServerUrl)) return undefined;
  const origin = new URL(mcpServerUrl).origin;
  return { auth_url: `${origin}/authorize`, token_url: `${origin}/token` };
}

/** Fixture timestamps may be written in any ISO form: stored as epoch ms, the wire writes the service's own form. */
function toStored(record: ProviderWithSecret): StoredProvider {
  return { ...record, created_at: Date.parse(record.created_at), updated_at: Date.parse(record.updated_at) };
}

function slugify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

/** Hands out unique provider_id slugs: "slack", then "slack-2", "slack-3"… skipping the taken ones. */
class SlugAllocator {
  private readonly taken: Set<string>;
  private readonly next = new Map<string, number>();

  constructor(reserved: string[]) {
    this.taken = new Set(reserved);
  }

  allocate(base: string): string {
    let n = this.next.get(base) ?? 1;
    let slug = n === 1 ? base : `${base}-${n}`;
    while (this.taken.has(slug)) slug = `${base}-${++n}`;
    this.next.set(base, n + 1);
    this.taken.add(slug);
    return slug;
  }
}
