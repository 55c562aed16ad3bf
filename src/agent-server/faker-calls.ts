import type { Faker } from "@faker-js/faker";
import { closest } from "../core/did-you-mean.js";
import { loadFaker } from "../core/lazy-faker.js";

/*
 * Calls of faker generators from scenario templates (`{{faker.person.firstName}}`): making one, and
 * checking one when a scenario is loaded (the call is tried on a faker of its own, which gives the
 * reason and the hint).
 */

/**
 * Calls a faker generator. Names every object inherits (`valueOf`, `toString`, `constructor`, …) are
 * not generators: `faker.string.valueOf` would hand back the module itself, which cannot be written
 * as JSON. A result that is not plain data is refused for the same reason. Dates (`date.recent`,
 * `git.commitDate`, …) count from `now`, the mock's clock: faker's default is the machine's.
 */
export function callFaker(faker: Faker, module: string, method: string, now: number): unknown {
  if (module in Object.prototype || method in Object.prototype) throw new Error(`faker.${module}.${method} does not exist`);
  faker.setDefaultRefDate(now);
  const mod = (faker as unknown as Record<string, unknown>)[module];
  const fn = mod && typeof mod === "object" ? (mod as Record<string, unknown>)[method] : undefined;
  if (typeof fn !== "function") throw new Error(`faker.${module}.${method} does not exist`);
  const value = (fn as () => unknown).call(mod);
  if (!isFakerData(value)) throw new Error(`faker.${module}.${method} does not return a string, number, boolean, date or list of them`);
  return value;
}

function isFakerData(value: unknown): boolean {
  if (value === null || ["string", "number", "boolean"].includes(typeof value) || value instanceof Date) return true;
  return Array.isArray(value) && value.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v));
}

/** A faker of its own to try template calls on, so checking never moves a mock's seeded sequence. */
let checkingFaker: Faker | undefined;

/** Why `faker.<module>.<method>` cannot be a template, or undefined when it can. */
export function fakerCallProblem(module: string, method: string): string | undefined {
  const faker = (checkingFaker ??= loadFaker());
  try {
    callFaker(faker, module, method, 0);
    return undefined;
  } catch (err) {
    return `not a faker method that takes no arguments (${(err as Error).message})${fakerHint(faker, module, method)}`;
  }
}

/** Module name → method names, read off faker itself (modules are own properties, methods live on their prototypes). */
function fakerModules(faker: Faker): Record<string, string[]> {
  const fakerObject = faker as unknown as Record<string, unknown>;
  const out: Record<string, string[]> = {};
  for (const module of Object.keys(fakerObject)) {
    if (module.startsWith("_") || module === "rawDefinitions" || module === "definitions" || typeof fakerObject[module] !== "object") continue;
    out[module] = Object.getOwnPropertyNames(Object.getPrototypeOf(fakerObject[module])).filter((k) => k !== "constructor" && !k.startsWith("_"));
  }
  return out;
}

/** ` (did you mean faker.x.y?)` for a misspelt faker module or method, or "". */
function fakerHint(faker: Faker, module: string, method: string): string {
  // The typed names are only compared with faker's own, never used to index.
  const modules = fakerModules(faker);
  const names = Object.keys(modules);
  const mod = names.includes(module) ? module : closest(module, names);
  if (!mod) return "";
  const methods = modules[mod] ?? [];
  const fn = methods.includes(method) ? method : closest(method, methods);
  return fn && (fn !== method || mod !== module) ? ` (did you mean faker.${mod}.${fn}?)` : "";
}
