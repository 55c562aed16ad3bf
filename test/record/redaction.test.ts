import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/record/redaction.js";

/**
 * Known secrets (the configured key, client credentials) of any length: a long one goes wherever it
 * appears; a short one wherever it stands as a token of its own, since inside a longer word it is
 * that word's letters, not the key.
 */
describe("Redactor: known secrets", () => {
  it("redacts a short secret as a whole value, a key, and a token in text", () => {
    const r = new Redactor(["k3y!pw"]);
    expect(r.json({ echoed: "k3y!pw", "k3y!pw": 1, list: ["k3y!pw"] })).toEqual({ echoed: "[redacted]", "[redacted]": 1, list: ["[redacted]"] });
    expect(r.text("my key is k3y!pw.")).toBe("my key is [redacted].");
    expect(r.text("KEY=k3y!pw&x=1 (k3y!pw) k3y!pw_suffix \"k3y!pw\"")).toBe('KEY=[redacted]&x=1 ([redacted]) [redacted]_suffix "[redacted]"');
  });

  it("leaves a short secret's pieces, other short strings, and words it is part of", () => {
    const r = new Redactor(["k3y!pw"]);
    const text = "key pw k3y y!p k3y! ok 1 en xk3y!pw k3y!pwd 2k3y!pw";
    expect(r.text(text)).toBe(text);
  });

  it("redacts a one-character secret only where it stands alone", () => {
    const r = new Redactor(["7"]);
    expect(r.json({ a: "7", b: "step 7 of 9", c: "v7 747 7b", d: 7 })).toEqual({ a: "[redacted]", b: "step [redacted] of 9", c: "v7 747 7b", d: 7 });
  });

  it("takes a short secret's punctuation edges as they are, and letters of any script as letters", () => {
    expect(new Redactor(["!pw"]).text("k3y!pw and !pw and !pwx")).toBe("k3y[redacted] and [redacted] and !pwx");
    expect(new Redactor(["clé"]).text("clé cléf éclé")).toBe("[redacted] cléf éclé");
  });

  it("redacts a long secret wherever it appears, inside words too", () => {
    const r = new Redactor(["long-key-0123456789"]);
    expect(r.text("xlong-key-0123456789y")).toBe("x[redacted]y");
  });

  it("redacts a short credential a client sent, as the configured one", () => {
    const r = new Redactor([undefined]);
    r.remember("abc12");
    expect(r.json({ k: "abc12", t: "key abc12 refused", u: "abc123" })).toEqual({ k: "[redacted]", t: "key [redacted] refused", u: "abc123" });
    r.remember("");
    expect(r.text("nothing to do")).toBe("nothing to do");
  });
});
