import { describe, expect, it } from "vitest";
import type { LoadProblem } from "../../src/core/load-error.js";
import { parseDocument } from "../../src/core/read-documents.js";
import { addYamlLines } from "../../src/core/yaml-lines.js";

function parse(text: string): { content?: unknown; problems: LoadProblem[] } {
  const problems: LoadProblem[] = [];
  const doc = parseDocument("f.yaml", text, problems, true);
  return { content: doc?.content, problems };
}

function linesOf(text: string, pointers: string[]): (number | undefined)[] {
  const problems = pointers.map((pointer) => ({ file: "f.yaml", pointer, reason: "x" }) as LoadProblem);
  addYamlLines(text, problems);
  return problems.map((p) => p.line);
}

describe("YAML files", () => {
  it("are read with YAML 1.2's core schema: dates and yes stay strings, merge keys are plain keys, __proto__ is data", () => {
    const { content, problems } = parse("a: 2024-01-01\nb: yes\nc: 0o17\nd: ~\n<<: {e: 1}\n__proto__: {polluted: 1}\n");
    expect(problems).toEqual([]);
    expect(content).toEqual(JSON.parse('{"a":"2024-01-01","b":"yes","c":15,"d":null,"<<":{"e":1},"__proto__":{"polluted":1}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("an empty file, or one of comments only, is null; two documents, duplicate keys and custom tags are refused with a position", () => {
    expect(parse("")).toEqual({ content: null, problems: [] });
    expect(parse("# nothing yet\n")).toEqual({ content: null, problems: [] });
    expect(parse("a: 1\n---\nb: 2\n").problems[0]?.reason).toMatch(/^invalid YAML: more than one document/);
    expect(parse("a: 1\na: 2\n").problems).toEqual([{ file: "f.yaml", pointer: "", reason: "invalid YAML at line 2, column 1: duplicated mapping key" }]);
    expect(parse("a: !custom x\n").problems[0]?.reason).toMatch(/^invalid YAML at line 1, column 4: unknown scalar tag/);
  });

  it("nesting is limited as in JSON files: 64 levels load, a 65th is refused with its position", () => {
    const nested = (levels: number) => `a: ${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}\n`;
    expect(parse(nested(64)).problems).toEqual([]);
    expect(parse(nested(65)).problems).toEqual([{ file: "f.yaml", pointer: "", reason: "invalid YAML at line 1, column 67: nesting exceeded maxDepth (64)" }]);
  });

  it("aliases are limited, then measured by their expanded size", () => {
    const many = `a: &a [1]\nb: [${Array.from({ length: 101 }, () => "*a").join(", ")}]\n`;
    expect(parse(many).problems[0]?.reason).toMatch(/^invalid YAML.*alias/i);
  });

  it("a problem's line is where the value its pointer names starts, or its nearest parent", () => {
    const text = [
      "name: x", // 1
      "turns:", // 2
      "  - events:", // 3
      "      - {event: values, data: {a: 1}}", // 4
      "      - event: updates", // 5
      "        data:", // 6
      "          a/b~c: &v", // 7
      "            - 1", // 8
      "          again: *v", // 9
      "    end: success", // 10
    ].join("\n");
    expect(linesOf(text, ["", "/name", "/turns/0", "/turns/0/events/0/data/a", "/turns/0/events/1/data", "/turns/0/events/1/data/a~1b~0c/0", "/turns/0/events/1/data/again", "/turns/0/end", "/turns/0/missing", "/nothing/deeper"])).toEqual([1, 1, 3, 4, 7, 8, 9, 10, 3, 1]);
  });
});
