import { LoadError, type LoadProblem } from "../core/load-error.js";
import { readDocuments, type SourceDocument } from "../core/read-documents.js";
import { checkScenarioDocuments } from "./scenario-validation.js";
import type { LoadedScenario, ScenarioInput } from "./scenario-types.js";

/** The graph every mock serves, whatever its scenarios name: the one the SDK examples use. */
export const DEFAULT_GRAPH = "agent";

/**
 * The loaded scenarios, in the order runs try them (priority, then load order). Start-up scenarios
 * are remembered so that reset("scenarios") can go back to them.
 */
export class ScenarioRegistry {
  private loaded: LoadedScenario[] = [];
  private startup: LoadedScenario[] = [];
  private ordered: LoadedScenario[] | undefined;
  private objects = 0;
  /** Told when the set changes (the mock's change feed). */
  onChange: ((action: "loaded" | "removed" | "reset", names: readonly string[]) => void) | undefined;

  /** Reads files, folders and scenario objects, checks them all and adds them; nothing is added if one is bad. */
  load(inputs: readonly (string | ScenarioInput)[]): string[] {
    const problems: LoadProblem[] = [];
    const docs: SourceDocument[] = [];
    for (const input of inputs) {
      if (typeof input === "string") docs.push(...readDocuments([input], problems, true));
      else docs.push({ file: `<scenario object ${++this.objects}>`, content: input });
    }
    return this.add(docs, problems);
  }

  /** Adds already parsed documents (an upload); `problems` are parse problems found on the way. */
  add(docs: readonly SourceDocument[], problems: LoadProblem[] = []): string[] {
    const checked = checkScenarioDocuments(docs, new Set(this.loaded.map((s) => s.name)));
    problems.push(...checked.problems);
    if (problems.length) throw new LoadError(problems, "scenarios");
    this.loaded = [...this.loaded, ...checked.scenarios];
    this.ordered = undefined;
    const names = checked.scenarios.map((s) => s.name);
    this.onChange?.("loaded", names);
    return names;
  }

  /** Marks the current set as the one reset() returns to. */
  markStartup(): void {
    this.startup = this.loaded;
  }

  reset(): void {
    this.loaded = this.startup;
    this.ordered = undefined;
    this.onChange?.("reset", this.loaded.map((s) => s.name));
  }

  remove(name: string): boolean {
    const before = this.loaded.length;
    this.loaded = this.loaded.filter((s) => s.name !== name);
    this.ordered = undefined;
    const removed = this.loaded.length !== before;
    if (removed) this.onChange?.("removed", [name]);
    return removed;
  }

  get(name: string): LoadedScenario | undefined {
    return this.loaded.find((s) => s.name === name);
  }

  /** In load order. */
  list(): readonly LoadedScenario[] {
    return this.loaded;
  }

  /** In the order runs try them: higher priority first, then load order. */
  candidates(): readonly LoadedScenario[] {
    this.ordered ??= this.loaded.map((s, i) => ({ s, i })).sort((a, b) => b.s.priority - a.s.priority || a.i - b.i).map((x) => x.s);
    return this.ordered;
  }

  /** Graph names served: `agent`, then each graph the scenarios name, in load order. */
  graphs(): string[] {
    return [...new Set([DEFAULT_GRAPH, ...this.loaded.flatMap((s) => (s.graph_id ? [s.graph_id] : []))])];
  }
}
