import { createRequire } from "node:module";

type StringWidth = (text: string, options?: object) => number;

let real: StringWidth | undefined;

/**
 * `string-width` as the CLI's bundle has it (scripts/bundle.mjs aliases the package here). yargs lays
 * its help out with it, measuring every word; the package builds an Intl.Segmenter and compiles an
 * emoji regex as it loads, about 100 ms — half of what `--help` took. Printable ASCII, which is all of
 * the help text, is one column per character, so it is measured here; any other text goes to the
 * package itself, loaded on first need from where yargs resolves it.
 */
export default function stringWidth(text: string, options?: object): number {
  if (typeof text === "string" && PRINTABLE_ASCII.test(text)) return text.length;
  real ??= (createRequire(createRequire(import.meta.url).resolve("yargs"))("string-width") as { default: StringWidth }).default;
  return real(text, options);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
