import { spawnSync } from "node:child_process";
import { join } from "node:path";
import stringWidthPackage from "string-width";
import wrapAnsiPackage from "wrap-ansi";
import { describe, expect, it } from "vitest";
import stringWidth from "../../src/cli/text-width.js";
import wrapAnsi from "../../src/cli/text-wrap.js";

// The CLI's bundle lays its help out with text-width.ts and text-wrap.ts in place of string-width and
// wrap-ansi (scripts/bundle.mjs); tsc's unbundled modules beside it load the packages themselves.
const DIST = join(import.meta.dirname, "../../dist");

describe("the help's layout", () => {
  it("is byte for byte what yargs lays out with string-width and wrap-ansi", () => {
    const help = (file: string) => spawnSync(process.execPath, [join(DIST, file), "--help"], { encoding: "utf8", timeout: 15_000 });
    const bundled = help("cli.js");
    const unbundled = help("modules/cli.js");
    expect(bundled.status, bundled.stderr).toBe(0);
    expect(bundled.stdout).toContain("--check-responses");
    expect(bundled.stdout).toBe(unbundled.stdout);
  });

  const texts = [
    "Serve the control plane, agent server and tracing service on one port",
    "With --seed: auto lets each wait (a scenario's delay_ms) jump the clock ahead by itself",
    "  leading and  double  spaces, trailing   ",
    "first line\nsecond line\n\n  indented after a blank",
    "a-word-far-longer-than-any-column-it-could-be-given-in-a-terminal and then short words",
    "short then a-word-far-longer-than-any-column-it-could-be-given-in-a-terminal",
    "exactly ten",
    "   ",
    "",
    "colour \u001b[31mred\u001b[39m and emoji \u{1F600} go to the package",
  ];

  it("wraps every text as wrap-ansi does with cliui's options", () => {
    for (const text of texts) {
      for (const columns of [1, 5, 10, 11, 26, 40, 80]) {
        expect(wrapAnsi(text, columns, { hard: true }), `${JSON.stringify(text)} in ${columns}`).toBe(wrapAnsiPackage(text, columns, { hard: true }));
      }
    }
    expect(wrapAnsi(texts[2]!, 10, { trim: false })).toBe(wrapAnsiPackage(texts[2]!, 10, { trim: false }));
  });

  it("measures every text as string-width does", () => {
    for (const text of texts) expect(stringWidth(text), JSON.stringify(text)).toBe(stringWidthPackage(text));
  });
});
