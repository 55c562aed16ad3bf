import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { LoadProblem } from "./load-error.js";

/** A parsed fixture or scenario document and where it came from. */
export interface SourceDocument {
  file: string;
  content: unknown;
  /** The YAML source, kept so that problems can name a line. */
  yaml?: string;
}

const EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

/**
 * Reads files and folders (a folder: its .json/.yaml/.yml files, sorted by name) into documents.
 * Syntax errors become problems with the line and column; nothing is thrown for a bad file.
 */
export function readDocuments(paths: readonly string[], problems: LoadProblem[], allowYaml: boolean): SourceDocument[] {
  const out: SourceDocument[] = [];
  for (const path of paths) {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      problems.push({ file: path, pointer: "", reason: "no such file or folder" });
      continue;
    }
    const files = stats.isDirectory()
      ? readdirSync(path)
          .filter((name) => EXTENSIONS.has(extname(name)) && (allowYaml || extname(name) === ".json"))
          .sort()
          .map((name) => join(path, name))
      : [path];
    for (const file of files) {
      const doc = parseDocument(file, readFileSync(file, "utf8"), problems, allowYaml);
      if (doc) out.push(doc);
    }
  }
  return out;
}

export function parseDocument(file: string, text: string, problems: LoadProblem[], allowYaml: boolean): SourceDocument | undefined {
  const yaml = allowYaml && /\.ya?ml$/i.test(file);
  try {
    return yaml ? { file, content: parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 }), yaml: text } : { file, content: JSON.parse(text) };
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const [line, col] = err.linePos?.[0] ? [err.linePos[0].line, err.linePos[0].col] : [0, 0];
      problems.push({ file, pointer: "", reason: `invalid YAML at line ${line}, column ${col}: ${err.message.split("\n")[0]}` });
    } else {
      const message = (err as Error).message;
      const position = Number(/position (\d+)/.exec(message)?.[1] ?? NaN);
      const where = Number.isNaN(position) ? "" : ` at line ${lineCol(text, position)}`;
      problems.push({ file, pointer: "", reason: `invalid JSON${where}: ${message}` });
    }
    return undefined;
  }
}

function lineCol(text: string, position: number): string {
  const before = text.slice(0, position).split("\n");
  return `${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}
