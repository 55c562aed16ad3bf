import { createRequire } from "node:module";

type WrapOptions = { hard?: boolean; trim?: boolean; wordWrap?: boolean };
type WrapAnsi = (text: string, columns: number, options?: WrapOptions) => string;

let real: WrapAnsi | undefined;

/**
 * `wrap-ansi` as the CLI's bundle has it (scripts/bundle.mjs aliases the package here, as it does
 * string-width with text-width.ts). cliui wraps every help column with it, `{ hard: true }`; the
 * package then walks the wrapped text a character at a time to carry colour codes across lines, a
 * third of what `--help` costs over bare node. The help text is printable ASCII without colour, so
 * its lines are laid out here by the package's own rules; any other text goes to the package itself.
 */
export default function wrapAnsi(text: string, columns: number, options: WrapOptions = {}): string {
  if (typeof text === "string" && ASCII_LINES.test(text) && options.hard === true && options.trim !== false && options.wordWrap !== false) {
    return text.split("\n").map((line) => wrapLine(line, columns)).join("\n");
  }
  real ??= (createRequire(createRequire(import.meta.url).resolve("yargs"))("wrap-ansi") as { default: WrapAnsi }).default;
  return real(text, columns, options);
}

const ASCII_LINES = /^[\x20-\x7e\n]*$/;

/** One line: words joined by single spaces up to `columns`; a word longer than a line is cut. */
function wrapLine(line: string, columns: number): string {
  if (line.trim() === "") return "";
  const rows = [""];
  const last = () => rows.length - 1;
  line.split(" ").forEach((word, index) => {
    rows[last()] = rows[last()]!.trimStart();
    let rowLength = rows[last()]!.length;
    if (index !== 0 && rowLength > 0) {
      rows[last()] += " ";
      rowLength++;
    }
    if (word.length > columns) {
      // Starts on a new row when that saves a break.
      const breaksStartingThisLine = 1 + Math.floor((word.length - (columns - rowLength) - 1) / columns);
      if (Math.floor((word.length - 1) / columns) < breaksStartingThisLine) rows.push("");
      cutWord(rows, word, columns);
      return;
    }
    if (rowLength + word.length > columns && rowLength > 0 && word.length > 0) rows.push("");
    rows[last()] += word;
  });
  return rows.map((row) => row.replace(/ +$/, "")).join("\n");
}

function cutWord(rows: string[], word: string, columns: number): void {
  let visible = rows[rows.length - 1]!.length;
  for (let index = 0; index < word.length; index++) {
    if (visible + 1 <= columns) rows[rows.length - 1] += word.charAt(index);
    else {
      rows.push(word.charAt(index));
      visible = 0;
    }
    visible++;
    if (visible === columns && index < word.length - 1) {
      rows.push("");
      visible = 0;
    }
  }
  if (!visible && rows[rows.length - 1]!.length > 0 && rows.length > 1) rows[rows.length - 2] += rows.pop()!;
}
