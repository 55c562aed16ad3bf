import type { Request } from "express";
import { isPlainObject } from "../core/json.js";
import type { Random, RandomState } from "../core/random.js";
import { contains } from "../core/contains.js";
import type { RouteSpec } from "./route.js";
import type { ServiceModule } from "./service-module.js";

/** The kinds of fault a rule can inject (DESIGN §8). */
export type FaultKind = "latency" | "status" | "reset" | "empty" | "malformed" | "drip" | "cut" | "stall" | "bad_frame" | "error_event";

export interface FaultMatch {
  method?: string;
  path?: string;
  route?: string;
  service?: string;
  attempt?: number | number[];
  headers?: Record<string, string>;
  body?: unknown;
}

/** A rule as given (`POST /_mock/faults`, `mock.faults.add()`, a faults file), validated by admin/fault.json. */
export interface FaultRuleInput {
  id?: string;
  match?: FaultMatch;
  fault: Partial<Record<FaultKind, Record<string, unknown>>>;
  probability?: number;
  times?: number;
}

/** A rule as listed: with its id and how often it fired. */
export interface FaultRule {
  id: string;
  match: FaultMatch;
  fault: Partial<Record<FaultKind, Record<string, unknown>>>;
  probability: number;
  times: number | null;
  fired: number;
}

/** What a stream writer is told to do to the stream it writes (the stream kinds). */
export interface StreamFault {
  id: string;
  kind: "cut" | "stall" | "bad_frame" | "error_event";
  afterEvents: number;
  error: string;
  message: string;
}

interface LiveRule extends FaultRule {
  pattern: RegExp | undefined;
  /** Requests that matched everything but the attempt number. */
  seen: number;
}

/**
 * The fault rules of one mock and their firing. Draws come from a generator derived from the one seed
 * (so adding a rule does not change the ids the mock hands out), delays from the mock's clock. The
 * first rule, in the order added, that matches and fires applies; the journal entry of the request it
 * hit names it.
 */
export class Faults {
  private rules: LiveRule[] = [];
  private nextId = 1;
  private readonly start: RandomState;

  constructor(private readonly random: Random) {
    this.start = random.checkpoint();
  }

  add(input: FaultRuleInput): FaultRule {
    const id = input.id ?? this.freeId();
    if (this.rules.some((r) => r.id === id)) throw new RangeError(`a fault rule with id ${JSON.stringify(id)} exists already`);
    const match = input.match ?? {};
    this.rules.push({ id, match, fault: input.fault, probability: input.probability ?? 1, times: input.times ?? null, fired: 0, pattern: match.path ? pathPattern(match.path) : undefined, seen: 0 });
    return this.describe(this.rules[this.rules.length - 1] as LiveRule);
  }

  /** The next `fault-N` no rule has: a rule may have been given such an id (reset re-adds start rules with theirs). */
  private freeId(): string {
    while (this.rules.some((r) => r.id === `fault-${this.nextId}`)) this.nextId++;
    return `fault-${this.nextId++}`;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => this.describe(r));
  }

  get(id: string): FaultRule | undefined {
    const rule = this.rules.find((r) => r.id === id);
    return rule && this.describe(rule);
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length !== before;
  }

  /**
   * Forgets every rule and starts the draws again from the seed. Automatic ids go on from where they
   * were: a handle from before (`faults.add`'s) must not find, fire-count or remove a newer rule.
   */
  clear(): void {
    this.rules = [];
    this.random.restore(this.start);
  }

  /** The first rule that matches this request and fires (counted as fired), if any: the fault stage applies it. */
  pick(req: Request, module: ServiceModule, spec: RouteSpec): { id: string; kind: FaultKind; params: Record<string, unknown> } | undefined {
    if (this.rules.length === 0) return undefined;
    const rule = this.firing(req, module, spec);
    if (!rule) return undefined;
    const [kind, params] = Object.entries(rule.fault)[0] as [FaultKind, Record<string, unknown>];
    return { id: rule.id, kind, params };
  }

  private firing(req: Request, module: ServiceModule, spec: RouteSpec): LiveRule | undefined {
    for (const rule of this.rules) {
      if (!matches(rule, req, module, spec)) continue;
      rule.seen++;
      const attempts = rule.match.attempt === undefined ? undefined : ([] as number[]).concat(rule.match.attempt);
      if (attempts && !attempts.includes(rule.seen)) continue;
      if (rule.times !== null && rule.fired >= rule.times) continue;
      // Drawn only for rules that can miss, so certain rules leave the sequence alone.
      if (rule.probability < 1 && this.random.next() >= rule.probability) continue;
      rule.fired++;
      return rule;
    }
    return undefined;
  }

  /** A delay for a latency fault: fixed, uniform, or log-normal from its median and 99th percentile. */
  latencyMs(p: Record<string, unknown>): number {
    if (typeof p.ms === "number") return p.ms;
    if (typeof p.min_ms === "number") return (p.min_ms as number) + this.random.next() * Math.max(0, (p.max_ms as number) - (p.min_ms as number));
    const median = p.median_ms as number;
    const sigma = Math.max(0, Math.log((p.p99_ms as number) / median) / 2.326);
    // Box–Muller from two draws of the seeded generator.
    const z = Math.sqrt(-2 * Math.log(1 - this.random.next())) * Math.cos(2 * Math.PI * this.random.next());
    return Math.min(86_400_000, median * Math.exp(sigma * z));
  }

  private describe(rule: LiveRule): FaultRule {
    return { id: rule.id, match: structuredClone(rule.match), fault: structuredClone(rule.fault), probability: rule.probability, times: rule.times, fired: rule.fired };
  }
}

function matches(rule: LiveRule, req: Request, module: ServiceModule, spec: RouteSpec): boolean {
  const m = rule.match;
  if (m.method && m.method.toUpperCase() !== req.method) return false;
  if (rule.pattern && !rule.pattern.test(req.path)) return false;
  if (m.route && m.route !== spec.name) return false;
  if (m.service && m.service !== module.name) return false;
  if (m.headers) for (const [name, value] of Object.entries(m.headers)) if (req.headers[name.toLowerCase()] !== value) return false;
  if (m.body !== undefined && !(isPlainObject(req.body) || Array.isArray(req.body) ? contains(req.body, m.body) : false)) return false;
  return true;
}

/** `*` is one path segment, `**` any number of them. */
export function pathPattern(pattern: string): RegExp {
  const source = pattern
    .split("/")
    .map((segment) => (segment === "**" ? ".*" : segment === "*" ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}
