import type { Faker } from "@faker-js/faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";

/** Where generated timestamps lie, and how many items a generated array has at most. */
const EARLIEST = new Date("2024-01-01T00:00:00Z");
const LATEST = new Date("2025-12-31T00:00:00Z");
const MAX_ITEMS = 2;

/**
 * The faker of `random` seeded for one record's `label` (say "deployments/7"): the record's values
 * depend only on the seed and the label, not on what was drawn before, so adding a fixture never
 * changes the records generated for the others.
 */
export function fakerFor(random: Random, label: string): Faker {
  const faker = random.faker;
  faker.seed(random.seedFor(label));
  return faker;
}

/**
 * The properties of the object schema at `ref` that a fixture entry leaves out and its seed step
 * does not set itself (`skip`), drawn with `faker` (fill). Drawing only those keeps a fixture entry
 * to a few faker calls.
 */
export function generateRecord(ref: string, faker: Faker, skip: Iterable<string> = []): Record<string, unknown> {
  const skipped = new Set(skip);
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties(schemas().inlined(ref)))) if (!skipped.has(key)) out[key] = fill(property, faker);
  return out;
}

/**
 * A value for an inlined schema node, every optional property present. A property's `faker`
 * annotation (`"git.branch"`, or `{"helpers.arrayElement": [[…]]}` with the call's arguments) says
 * how to draw it; otherwise its enum, format or type does. Nullable types and `anyOf` branches are
 * picked at random, so generated records show both. Only the keywords the record schemas use are
 * drawn for: a schema that needs another gets values its check refuses, and the fixture checks say so.
 */
function fill(node: Record<string, unknown>, faker: Faker): unknown {
  if (node.faker !== undefined) return fakeFromHint(faker, node.faker as FakerHint);
  if (Array.isArray(node.enum)) return faker.helpers.arrayElement(node.enum);
  if (Array.isArray(node.anyOf)) return fill(faker.helpers.arrayElement(node.anyOf as Record<string, unknown>[]), faker);
  const type = Array.isArray(node.type) ? faker.helpers.arrayElement(node.type as string[]) : node.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(properties(node))) out[key] = fill(property, faker);
      return out;
    }
    case "array": {
      const max = Math.min(typeof node.maxItems === "number" ? node.maxItems : MAX_ITEMS, MAX_ITEMS);
      const count = faker.number.int({ min: Math.min(Number(node.minItems ?? 0), max), max });
      return Array.from({ length: count }, () => fill(node.items as Record<string, unknown>, faker));
    }
    case "string":
      if (node.format === "uuid") return faker.string.uuid();
      if (node.format === "date-time") return faker.date.between({ from: EARLIEST, to: LATEST }).toISOString();
      return faker.lorem.word();
    case "integer":
      return faker.number.int({ min: Number(node.minimum ?? 0), max: Number(node.maximum ?? 1000) });
    case "number":
      return faker.number.float({ min: Number(node.minimum ?? 0), max: Number(node.maximum ?? 1000), fractionDigits: 2 });
    case "boolean":
      return faker.datatype.boolean();
    default:
      return null;
  }
}

/** `record` with its keys in the order of the schema's properties (the order the service writes them), any others after. */
export function inSchemaOrder<T extends object>(ref: string, record: T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(properties(schemas().inlined(ref)))) if (Object.hasOwn(record, key)) out[key] = (record as Record<string, unknown>)[key];
  return Object.assign(out, record) as T;
}

function properties(node: Record<string, unknown>): Record<string, Record<string, unknown>> {
  return (node.properties ?? {}) as Record<string, Record<string, unknown>>;
}

/** A schema's `faker` annotation: a method path, or one path with its arguments. */
export type FakerHint = string | Record<string, unknown[]>;

/** Calls faker as an annotation says. */
export function fakeFromHint(faker: Faker, hint: FakerHint): unknown {
  const [path, args] = typeof hint === "string" ? [hint, []] : (Object.entries(hint)[0] as [string, unknown[]]);
  let owner = faker as unknown as Record<string, unknown>;
  const parts = path.split(".");
  for (const part of parts.slice(0, -1)) owner = owner[part] as Record<string, unknown>;
  return (owner[parts[parts.length - 1] as string] as (...a: unknown[]) => unknown).apply(owner, args);
}
