/**
 * The names one tenant's deployments take while fixtures load (a name is unique within its tenant):
 * the fixture entries' names, then each generated set's.
 */
export class TakenNames {
  private readonly listed = new Set<string>();
  private readonly generated: GeneratedNames[] = [];

  has(name: string): boolean {
    // Sizes first: a lookup in a set hashes the name even when the set is empty (a generated set's usual case).
    if (this.listed.size !== 0 && this.listed.has(name)) return true;
    for (const set of this.generated) if (set.has(name)) return true;
    return false;
  }

  /** A fixture entry's name. */
  add(name: string): void {
    this.listed.add(name);
  }

  /** The names of a new generated set, taken as they are pushed. */
  generatedSet(): GeneratedNames {
    const set = new GeneratedNames();
    this.generated.push(set);
    return set;
  }
}

/**
 * The names of a generated set, by record, without a hash set of every name: inserting 100,000 names
 * into a Set was a tenth of loading them. The `i`-th record's name is `${base}-${i + 1}`, so a name
 * that ends in `-<n>` is looked up as the name of record n - 1; only names of another form (shortened
 * to 63 characters, or drawn again after a clash) are kept in a set.
 */
export class GeneratedNames {
  private readonly byRecord: string[] = [];
  private readonly others = new Set<string>();

  has(name: string): boolean {
    if (this.others.size !== 0 && this.others.has(name)) return true;
    const record = suffixNumber(name) - 1;
    return record >= 0 && record < this.byRecord.length && this.byRecord[record] === name;
  }

  /** The name of the next record (the set's `byRecord.length`-th). */
  push(name: string): void {
    if (suffixNumber(name) - 1 !== this.byRecord.length) this.others.add(name);
    this.byRecord.push(name);
  }
}

/**
 * The number after a name's last hyphen as String(n) writes it (digits, no leading zero), else 0.
 * Read from the end by character codes: lastIndexOf is a call into the runtime, and this runs a few
 * times for every generated record.
 */
function suffixNumber(name: string): number {
  let at = name.length;
  while (at > 0 && isDigit(name.charCodeAt(at - 1))) at--;
  const digits = name.length - at;
  // More than 15 digits would not be exact, and is no record's number anyway.
  if (digits < 1 || digits > 15 || at === 0 || name.charCodeAt(at - 1) !== DASH || name.charCodeAt(at) === ZERO) return 0;
  let n = 0;
  for (; at < name.length; at++) n = n * 10 + (name.charCodeAt(at) - ZERO);
  return n;
}
const ZERO = 48;
const DASH = 45;
const isDigit = (code: number) => code >= ZERO && code <= ZERO + 9;
