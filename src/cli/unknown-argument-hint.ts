import { closest } from "../core/did-you-mean.js";

/**
 * yargs says `Unknown argument: prot` or `Unknown arguments: valdate, foo.json`; this adds what was
 * probably meant: a command for a bare word, an option for a flag (yargs drops the dashes, so a word
 * is tried as both). Returns the message unchanged when nothing is close.
 */
export function withUnknownArgumentHints(message: string, commands: readonly string[], options: readonly string[]): string {
  const match = /^Unknown arguments?: (.+)$/.exec(message);
  if (!match) return message;
  const hints: string[] = [];
  const words = (match[1] as string).split(", ");
  for (const word of words) {
    // yargs also lists the camelCase twin of a dashed flag; one hint per flag is enough.
    if (/[A-Z]/.test(word) && words.includes(word.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))) continue;
    const command = closest(word, commands);
    const option = closest(word, options);
    if (command) hints.push(`"${word}": did you mean the command ${command}?`);
    else if (option) hints.push(`"${word}": did you mean --${option}?`);
  }
  return hints.length ? `${message} (${hints.join("; ")})` : message;
}
