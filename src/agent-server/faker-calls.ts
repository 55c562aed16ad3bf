import { readFileSync } from "node:fs";
import type { Faker } from "@faker-js/faker";
import { codePath } from "../core/code-root.js";
import { closest } from "../core/did-you-mean.js";
import { installedPackage } from "../core/lazy-modules.js";
import { loadFaker } from "../core/lazy-faker.js";

/**
 * Calls of faker generators from scenario templates (`{{faker.person.firstName}}`): making one, and
 * checking one when a scenario is loaded. Checking used to try the call on a faker of its own, which
 * loaded faker — a fifth of the CLI's start-up — for every scenario file using a faker template. The
 * build now lists the generators that pass that check (scripts/list-faker-methods.mjs writes
 * dist/faker-methods.json, for the faker version it ran with), and a name on the list is accepted
 * without loading faker; any other name is tried as before, which gives the reason and the hint.
 */
export const FAKER_METHODS = codePath("faker-methods.json");

/**
 * Calls a faker generator. Names every object inherits (`valueOf`, `toString`, `constructor`, …) are
 * not generators: `faker.string.valueOf` would hand back the module itself, which cannot be written
 * as JSON. A result that is not plain data is refused for the same reason.
 */
export function callFaker(faker: Faker, module: string, method: string): unknown {
  if (module in Object.prototype || method in Object.prototype) throw new Error(`faker.${module}.${method} does not exist`);
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
/** The build's list (`module.method` names), or an empty set without one or for another faker version. */
let listed: Set<string> | undefined;

/** Why `faker.<module>.<method>` cannot be a template, or undefined when it can. */
export function fakerCallProblem(module: string, method: string): string | undefined {
  listed ??= readList();
  if (listed.has(`${module}.${method}`)) return undefined;
  const faker = (checkingFaker ??= loadFaker());
  try {
    callFaker(faker, module, method);
    return undefined;
  } catch (err) {
    return `not a faker method that takes no arguments (${(err as Error).message})${fakerHint(faker, module, method)}`;
  }
}

function readList(): Set<string> {
  try {
    const list = JSON.parse(readFileSync(FAKER_METHODS, "utf8")) as { faker: string; methods: string[] };
    return list.faker === installedPackage("@faker-js/faker").manifest.version ? new Set(list.methods) : new Set();
  } catch {
    // No build (the test suite runs from src/): every name is tried.
    return new Set();
  }
}

/**
 * Every `module.method` of `faker` that a template may call: those whose call passes `callFaker` for
 * each of `seeds` (the build's list; a generator whose result depended on the draw would be left out).
 */
export function listFakerMethods(faker: Faker, seeds: number[]): string[] {
  const out: string[] = [];
  for (const [module, methods] of Object.entries(fakerModules(faker))) {
    for (const method of methods) {
      const works = seeds.every((seed) => {
        faker.seed(seed);
        try {
          callFaker(faker, module, method);
          return true;
        } catch {
          return false;
        }
      });
      if (works) out.push(`${module}.${method}`);
    }
  }
  return out.sort();
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
