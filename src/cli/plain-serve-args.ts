import { serveOptions } from "./shared-options.js";
import { checkServeArgs, type ServeArgs } from "./serve-command.js";

type OptionSpec = { type?: "string" | "number" | "boolean" | "array"; choices?: readonly string[]; default?: unknown };
const OPTIONS: Readonly<Record<string, OptionSpec>> = serveOptions;

/**
 * `serve`'s arguments read without yargs, for a plain line: an optional `serve`, then serve's own
 * options as `--name value` or `--name=value` (a value that is plain text: not empty, not starting
 * with a dash or a quote; a whole number for numeric options; one of the choices for `--lifecycle`
 * and `--log-level`) and bare `--flag`s, no option but the repeatable ones given twice, and values
 * that pass serve's checks. What it returns is what yargs gives serve for the same line
 * (test/cli/plain-serve-args.test.ts compares them). Any other line — help, version, the other
 * commands, short, camelCase or `--no-` flags, an option given several words, a bad value — returns
 * undefined: yargs reads it, and answers or refuses it in its own words.
 */
export function plainServeArgs(args: readonly string[]): ServeArgs | undefined {
  const out: Record<string, unknown> = {};
  for (let i = args[0] === "serve" ? 1 : 0; i < args.length; i++) {
    const token = args[i] as string;
    if (!token.startsWith("--")) return undefined;
    const equals = token.indexOf("=");
    const name = token.slice(2, equals === -1 ? undefined : equals);
    const spec = Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : undefined;
    if (!spec || (spec.type !== "array" && Object.hasOwn(out, name))) return undefined;
    if (spec.type === "boolean") {
      // yargs would take a following word (`--quiet false`) as the flag's value.
      if (equals !== -1 || (i + 1 < args.length && !(args[i + 1] as string).startsWith("--"))) return undefined;
      out[name] = true;
      continue;
    }
    const value = equals === -1 ? args[++i] : token.slice(equals + 1);
    // yargs strips quotes, reads `-1` as a number or a flag, and gives a repeatable option every word that follows.
    if (!value || /^['"-]/.test(value) || (spec.type === "array" && i + 1 < args.length && !(args[i + 1] as string).startsWith("--"))) return undefined;
    if (spec.choices && !spec.choices.includes(value)) return undefined;
    if (spec.type === "number" && !/^\d+$/.test(value)) return undefined;
    if (spec.type === "array") out[name] = [...((out[name] as string[] | undefined) ?? []), value];
    else out[name] = spec.type === "number" ? Number(value) : value;
  }
  for (const [name, spec] of Object.entries(OPTIONS)) if (!Object.hasOwn(out, name) && spec.default !== undefined) out[name] = spec.default;
  try {
    return checkServeArgs(out as ServeArgs) && (out as ServeArgs);
  } catch {
    return undefined;
  }
}
