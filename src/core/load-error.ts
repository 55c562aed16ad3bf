/** One thing wrong with a fixture or scenario file: where, and why. */
export interface LoadProblem {
  file: string;
  /** JSON pointer into the file's content ("" for the whole document). */
  pointer: string;
  reason: string;
  /** 1-based line in a YAML file, when known. */
  line?: number;
}

/**
 * A fixture or scenario file the mock refuses to load. The message lists every problem as
 * `file#pointer: reason`, one per line, so a user can go straight to the spot.
 */
export class LoadError extends Error {
  constructor(
    readonly problems: LoadProblem[],
    what = "file",
  ) {
    super(`Refused to load ${what}:\n${problems.map(formatProblem).join("\n")}`);
    this.name = "LoadError";
  }
}

export function formatProblem(p: LoadProblem): string {
  return `  ${p.file}#${p.pointer}${p.line ? ` (line ${p.line})` : ""}: ${p.reason}`;
}
