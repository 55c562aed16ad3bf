import { LoadError, type LoadProblem } from "../core/load-error.js";
import { ParsedFiles, readDocuments, type SourceDocument } from "../core/read-documents.js";
import { checkScenarioDocuments } from "./scenario-validation.js";
import type { LoadedScenario, ScenarioInput } from "./scenario-types.js";

/** The graph every mock serves, whatever its scenarios name: the one the SDK examples use. */
export const DEFAULT_GRAPH = "agent";

/** Scenario files parsed by this process: every mock of a test suite reads the same ones (the bundled catalogue). */
const parsedFiles = new ParsedFiles();

/** One loaded scenario and where it sits in the order runs try them. */
interface Entry {
  scenario: LoadedScenario;
  /** Which load (call) added it: a later load wins at equal priority, as MSW's use() and WireMock's newest stub. */
  batch: number;
  /** Added by use(): tried before every scenario that was not, whatever their priorities. */
  override: boolean;
}

export type ScenarioChangeListener = (action: "loaded" | "removed" | "reset", names: readonly string[]) => void;

/** What use() hands back: call it (or let `using` dispose it) to take the overrides away again. */
export interface OverrideHandle {
  (): void;
  /** Names of the scenarios this use() added. */
  readonly names: string[];
  [Symbol.dispose](): void;
}

/**
 * The loaded scenarios, in the order runs try them: overrides (use()) first, then higher priority,
 * then the newest load; within one load, the order of the files and lists as given. Loading a name
 * that is already loaded replaces it. Start-up scenarios are remembered so that reset("scenarios")
 * can go back to them (and drop every override).
 */
export class ScenarioRegistry {
  private entries: Entry[] = [];
  private startup: Entry[] = [];
  /** Scenario objects read so far (their names in messages: `<scenario object N>`), and at start-up. */
  private objects = 0;
  private startupObjects = 0;
  private batches = 0;
  private readonly used = new Set<LoadedScenario>();
  private readonly listeners = new Set<ScenarioChangeListener>();

  /** Tells `listener` when the set changes (the mock's change feed); returns the unsubscribe. */
  subscribe(listener: ScenarioChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private changed(action: "loaded" | "removed" | "reset", names: readonly string[]): void {
    for (const listener of this.listeners) listener(action, names);
  }

  /** Reads files, folders and scenario objects, checks them all and adds them; nothing is added if one is bad. */
  load(inputs: readonly (string | ScenarioInput)[]): string[] {
    const { docs, problems } = this.read(inputs);
    return this.add(docs, problems);
  }

  /** Adds already parsed documents (an upload); `problems` are parse problems found on the way. */
  add(docs: readonly SourceDocument[], problems: LoadProblem[] = []): string[] {
    return this.insert(docs, problems, false).map((e) => e.scenario.name);
  }

  /**
   * Adds scenarios that win over every other one until the returned handle is called or the
   * scenarios are reset. A name that is loaded already is hidden meanwhile and comes back afterwards.
   */
  use(inputs: readonly (string | ScenarioInput)[]): OverrideHandle {
    const { docs, problems } = this.read(inputs);
    return this.useDocuments(docs, problems);
  }

  /** use() with already parsed documents (an upload); `problems` are parse problems found on the way. */
  useDocuments(docs: readonly SourceDocument[], problems: LoadProblem[] = []): OverrideHandle {
    const hidden = new Map<string, Entry>();
    for (const e of this.entries) hidden.set(e.scenario.name, e);
    const added = this.insert(docs, problems, true);
    const names = added.map((e) => e.scenario.name);
    for (const name of [...hidden.keys()]) if (!names.includes(name)) hidden.delete(name);
    let done = false;
    const off = () => {
      if (done) return;
      done = true;
      // Overrides already gone (reset, or replaced by a later load) are not there to remove.
      const present = this.entries.filter((e) => added.includes(e));
      if (!present.length) return;
      this.entries = this.entries.filter((e) => !added.includes(e));
      // Bring back what an override hid, unless that name was loaded again meanwhile.
      for (const e of hidden.values()) if (!this.get(e.scenario.name)) this.entries.push(e);
      this.changed("removed", present.map((e) => e.scenario.name));
    };
    return Object.assign(off, { names, [Symbol.dispose]: off });
  }

  /**
   * A `once` scenario was picked by a run: no later run picks it (until reset("scenarios")). It stays
   * loaded, so the thread it started goes on with its next turns and can resume an interrupt.
   */
  consume(scenario: LoadedScenario): void {
    this.used.add(scenario);
  }

  /** Whether a `once` scenario has served its run. */
  isUsed(scenario: LoadedScenario): boolean {
    return this.used.has(scenario);
  }

  /** Marks the current set as the one reset() returns to. */
  markStartup(): void {
    this.startup = this.entries;
    this.startupObjects = this.objects;
  }

  reset(): void {
    this.entries = this.startup;
    this.objects = this.startupObjects;
    this.used.clear();
    this.changed("reset", this.entries.map((e) => e.scenario.name));
  }

  remove(name: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.scenario.name !== name);
    const removed = this.entries.length !== before;
    if (removed) this.changed("removed", [name]);
    return removed;
  }

  get(name: string): LoadedScenario | undefined {
    return this.entries.find((e) => e.scenario.name === name)?.scenario;
  }

  /** In load order (a replaced scenario takes its replacement's place at the end). */
  list(): readonly LoadedScenario[] {
    return this.entries.map((e) => e.scenario);
  }

  /** Whether a scenario was added by use(). */
  isOverride(scenario: LoadedScenario): boolean {
    return this.entries.some((e) => e.scenario === scenario && e.override);
  }

  /** In the order runs try them: overrides first, then higher priority, then newer loads; file order within a load. */
  candidates(): readonly LoadedScenario[] {
    return this.entries
      .filter((e) => !this.used.has(e.scenario))
      .map((e, i) => ({ e, i }))
      .sort((a, b) => Number(b.e.override) - Number(a.e.override) || b.e.scenario.priority - a.e.scenario.priority || b.e.batch - a.e.batch || a.i - b.i)
      .map((x) => x.e.scenario);
  }

  /** Graph names served: `agent`, then each graph the scenarios name, in load order. */
  graphs(): readonly string[] {
    return [...new Set([DEFAULT_GRAPH, ...this.entries.flatMap((e) => (e.scenario.graph_id ? [e.scenario.graph_id] : []))])];
  }

  private read(inputs: readonly (string | ScenarioInput)[]): { docs: SourceDocument[]; problems: LoadProblem[] } {
    const problems: LoadProblem[] = [];
    const docs: SourceDocument[] = [];
    for (const input of inputs) {
      if (typeof input === "string") docs.push(...readDocuments([input], problems, true, parsedFiles));
      else docs.push({ file: `<scenario object ${++this.objects}>`, content: input });
    }
    return { docs, problems };
  }

  /** Checks and adds one load; a name loaded before is replaced (its entry leaves, the new one joins this load). */
  private insert(docs: readonly SourceDocument[], problems: LoadProblem[], override: boolean): Entry[] {
    const checked = checkScenarioDocuments(docs);
    problems.push(...checked.problems);
    if (problems.length) throw new LoadError(problems, "scenarios");
    const batch = ++this.batches;
    const added = checked.scenarios.map((scenario) => ({ scenario, batch, override }));
    const names = new Set(added.map((e) => e.scenario.name));
    this.entries = [...this.entries.filter((e) => !names.has(e.scenario.name)), ...added];
    this.changed("loaded", [...names]);
    return added;
  }
}
