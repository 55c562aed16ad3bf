import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { yaml as yamlPackage } from "./lazy-modules.js";
import type { LoadProblem } from "./load-error.js";
import { MAX_DEPTH, jsonTextDepth, shapeProblem } from "./shape-limits.js";
import { freezeJson } from "./json.js";

/** Largest fixture or scenario file read (a bigger one is a problem, not a long stall). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A parsed fixture or scenario document and where it came from. */
export interface SourceDocument {
  file: string;
  content: unknown;
  /** The YAML source, kept so that problems can name a line. */
  yaml?: string;
}

const EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

/**
 * How YAML files are parsed: YAML 1.2's core schema (no merge keys, timestamps or custom tags; js-yaml
 * refuses duplicate keys and keys that are not scalars), aliases limited and then measured by their
 * expanded size (shapeProblem); nesting past MAX_DEPTH is refused by the parser, with its position.
 */
const YAML_OPTIONS = { maxAliases: 100, maxDepth: MAX_DEPTH } as const;

/**
 * Reads files and folders (a folder: its .json/.yaml/.yml files, sorted by name) into documents.
 * Syntax errors become problems with the line and column; nothing is thrown for a bad file. Only
 * regular files are read: a folder or a FIFO whose name ends in .json is a problem naming it (reading
 * a FIFO would block start-up until something writes to it).
 */
export function readDocuments(paths: readonly string[], problems: LoadProblem[], allowYaml: boolean, parsed?: ParsedFiles): SourceDocument[] {
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
      const text = readRegularFile(file, problems);
      if (text === undefined) continue;
      const doc = parsed ? parsed.parse(file, text, problems, allowYaml) : parseDocument(file, text, problems, allowYaml);
      if (doc) out.push(doc);
    }
  }
  return out;
}

function readRegularFile(file: string, problems: LoadProblem[]): string | undefined {
  try {
    const stats = statSync(file);
    if (!stats.isFile()) {
      problems.push({ file, pointer: "", reason: stats.isDirectory() ? "is a folder, not a file" : "is not a regular file (a FIFO, socket or device cannot be read)" });
      return undefined;
    }
    if (stats.size > MAX_FILE_BYTES) {
      problems.push({ file, pointer: "", reason: `is ${stats.size} bytes; files are limited to ${MAX_FILE_BYTES}` });
      return undefined;
    }
    return readFileSync(file, "utf8");
  } catch (err) {
    problems.push({ file, pointer: "", reason: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
    return undefined;
  }
}

/**
 * Documents parsed from files, kept per process by file and text: a test suite starts a mock per test
 * from the same fixture files, and the same text parses to the same document. A kept document is
 * frozen and shared by every mock that reads that text (what it is built from is never changed in
 * place; frozen, a mistake throws rather than leaks between mocks). The file is still read each time,
 * so an edited file is parsed again. One text per file is kept, for at most MAX_KEPT files (past it
 * the list starts again); a file with problems is not kept.
 */
export class ParsedFiles {
  private static readonly MAX_KEPT = 500;
  private readonly kept = new Map<string, { text: string; allowYaml: boolean; doc: SourceDocument }>();
  /** A name for each kept document's text, unique in the process (see textKey). */
  private readonly names = new WeakMap<SourceDocument, string>();
  private named = 0;

  /**
   * A name for the text a document returned by parse() was parsed from, or undefined for any other
   * document: the same for the same text, and for no other text in this process. What is fixed by a
   * file's text can be kept under it without writing out the document again.
   */
  textKey(doc: SourceDocument): string | undefined {
    return this.names.get(doc);
  }

  parse(file: string, text: string, problems: LoadProblem[], allowYaml: boolean): SourceDocument | undefined {
    const kept = this.kept.get(file);
    if (kept && kept.text === text && kept.allowYaml === allowYaml) return kept.doc;
    const before = problems.length;
    const doc = parseDocument(file, text, problems, allowYaml);
    if (!doc || problems.length > before) return doc;
    if (this.kept.size >= ParsedFiles.MAX_KEPT) this.kept.clear();
    this.kept.set(file, { text, allowYaml, doc: freezeJson(doc) });
    this.names.set(doc, String(++this.named));
    return doc;
  }
}

/**
 * Parses one document. Besides syntax, its shape is limited: nesting past MAX_DEPTH and, for YAML,
 * more than MAX_NODES values once aliases are expanded are problems (an alias to a big list used a
 * hundred times is a small file that every later step would walk a hundred times).
 */
export function parseDocument(file: string, text: string, problems: LoadProblem[], allowYaml: boolean): SourceDocument | undefined {
  const yaml = allowYaml && /\.ya?ml$/i.test(file);
  try {
    if (!yaml && jsonTextDepth(text) > MAX_DEPTH) {
      problems.push({ file, pointer: "", reason: `refused: nested deeper than ${MAX_DEPTH} levels` });
      return undefined;
    }
    const content: unknown = yaml ? parseYaml(text) : JSON.parse(text);
    const shape = yaml ? shapeProblem(content) : undefined;
    if (shape) {
      problems.push({ file, pointer: "", reason: `refused: ${shape}` });
      return undefined;
    }
    return yaml ? { file, content, yaml: text } : { file, content };
  } catch (err) {
    if (yaml && err instanceof yamlPackage().YAMLException && err.mark) {
      problems.push({ file, pointer: "", reason: `invalid YAML at line ${err.mark.line + 1}, column ${err.mark.column + 1}: ${err.reason}` });
    } else if (yaml) {
      // The parser's own limits (alias count, stack depth): no position to give.
      problems.push({ file, pointer: "", reason: `invalid YAML: ${(err as Error).message.split("\n")[0]}` });
    } else {
      const message = (err as Error).message;
      const position = Number(/position (\d+)/.exec(message)?.[1] ?? NaN);
      const where = Number.isNaN(position) ? "" : ` at line ${lineCol(text, position)}`;
      problems.push({ file, pointer: "", reason: `invalid JSON${where}: ${message}` });
    }
    return undefined;
  }
}

/** One YAML document's value; an empty file (or one of comments only) is null, more than one document an error. */
function parseYaml(text: string): unknown {
  const documents = yamlPackage().loadAll(text, YAML_OPTIONS);
  if (documents.length > 1) throw new Error("more than one document (---) in the file; a file holds one");
  return documents[0] ?? null;
}

function lineCol(text: string, position: number): string {
  const before = text.slice(0, position).split("\n");
  return `${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}
