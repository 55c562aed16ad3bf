import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installedPackage } from "../core/lazy-modules.js";
import { sha256Hex } from "../core/digest.js";

/** Bumped when what a draft is made from changes in a way the key below does not see. */
const FORMAT = 1;

/** What else fixes a draft besides its schema, seed and options: the generators' own versions (read when first needed). */
let generators: string[] | undefined;

function generatorVersions(): string[] {
  generators ??= ["json-schema-faker", "@faker-js/faker"].map((name) => {
    try {
      return String(installedPackage(name).manifest.version);
    } catch {
      return "unknown";
    }
  });
  return generators;
}

/**
 * Generated fixture drafts kept on disk between processes. A seeded draft is fixed by its schema, its
 * label's seed, the generation options and the generators' versions, so every process that builds the
 * same seeded mock (each test worker, each CLI start) would otherwise pay json-schema-faker's walk
 * again: most of a first start. Entries are JSON files named by a digest of all of that; a file that
 * cannot be read or parsed is a miss, a write that fails is skipped, and writes are atomic (a file is
 * renamed into place), so parallel processes never see half an entry. Unseeded mocks draw new seeds
 * every time and are never cached.
 *
 * Where: `AGENT_PLATFORM_MOCK_CACHE_DIR` (empty or `off`: no cache), else
 * `node_modules/.cache/agent-platform-mock` under the working directory when it has `node_modules`,
 * else `agent-platform-mock-cache-<uid>` in the system's temporary directory.
 */
export class DraftCache {
  private nextTemp = 0;

  constructor(readonly dir: string | undefined) {}

  private readonly schemaDigests = new WeakMap<object, string>();

  /** The key of a draft: a digest of everything that decides its content (the schema's digested once). */
  key(schema: object, seed: number, options: unknown): string {
    let digest = this.schemaDigests.get(schema);
    if (digest === undefined) this.schemaDigests.set(schema, (digest = sha256Hex(JSON.stringify(schema))));
    return sha256Hex(JSON.stringify([FORMAT, generatorVersions(), digest, seed, options])).slice(0, 40);
  }

  read(key: string): Record<string, unknown> | undefined {
    if (!this.dir) return undefined;
    try {
      const value = JSON.parse(readFileSync(join(this.dir, `${key}.json`), "utf8")) as unknown;
      return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keeps a draft's JSON text under `key`. */
  write(key: string, text: string): void {
    if (!this.dir) return;
    const file = join(this.dir, `${key}.json`);
    const temp = `${file}.${process.pid}.${this.nextTemp++}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(temp, text);
      renameSync(temp, file);
    } catch {
      // A read-only or missing directory: the next process generates the draft again.
    }
  }
}

let shared: DraftCache | undefined;

/** The process's draft cache, made on first use. */
export function draftCache(): DraftCache {
  return (shared ??= new DraftCache(draftCacheDir()));
}

/** The cache directory as the environment and working directory say (see DraftCache). */
export function draftCacheDir(): string | undefined {
  const configured = process.env.AGENT_PLATFORM_MOCK_CACHE_DIR;
  if (configured !== undefined) return configured === "" || configured === "off" ? undefined : configured;
  const modules = join(process.cwd(), "node_modules");
  if (existsSync(modules)) return join(modules, ".cache", "agent-platform-mock");
  // Per user in the shared temporary directory, and only a folder this user owns and no one else may
  // write to: no other account's drafts are read.
  const shared = join(tmpdir(), `agent-platform-mock-cache-${process.getuid?.() ?? "user"}`);
  return ownFolder(shared) ? shared : undefined;
}

function ownFolder(dir: string): boolean {
  if (!existsSync(dir) || !process.getuid) return true;
  const st = statSync(dir);
  return st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o022) === 0;
}
