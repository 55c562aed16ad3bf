import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Random, isUuid, uuid5 } from "../../src/core/random.js";
import { sha1Words } from "../../src/core/sha1.js";

/** uuid5 as RFC 4122 §4.3 says, through node:crypto: what the mock's own SHA-1 must give. */
function referenceUuid5(name: string, namespace: string): string {
  const digest = createHash("sha1").update(Buffer.from(namespace.replace(/-/g, ""), "hex")).update(name, "utf8").digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const h = digest.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

describe("sha1 and uuid5", () => {
  it("sha1 gives node:crypto's digest for every length from 0 to 300 bytes (one to five blocks, every padding case, past its reused scratch), and of a message's first bytes", () => {
    const r = new Random(7);
    for (let length = 0; length <= 300; length++) {
      const message = r.bytes(length);
      const hex = [...sha1Words(message)].map((word) => (word >>> 0).toString(16).padStart(8, "0")).join("");
      expect(hex, `length ${length}`).toBe(createHash("sha1").update(message).digest("hex"));
      const head = [...sha1Words(message, length >> 1)].map((word) => (word >>> 0).toString(16).padStart(8, "0")).join("");
      expect(head, `first ${length >> 1} of ${length}`).toBe(createHash("sha1").update(message.subarray(0, length >> 1)).digest("hex"));
    }
  });

  it("uuid5 gives RFC 4122's for run ids, graph names and names outside ASCII", () => {
    // RFC 4122 appendix B's example (as corrected by the errata): the DNS namespace and "www.example.com".
    expect(uuid5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
    const r = new Random(8);
    const names = ["", "agent", "é", "名前", "emoji 🙂 and more", "x".repeat(300), ...Array.from({ length: 50 }, () => r.uuid7(1_767_000_000_000))];
    for (const namespace of ["5f1d2c3b-7a4e-4c1a-9b7e-2d6f8a0c1e3b", "6ba7b821-9dad-11d1-80b4-00c04fd430c8"]) {
      for (const name of names) expect(uuid5(name, namespace), name).toBe(referenceUuid5(name, namespace));
    }
  });

  it("seeded v4 and v7 ids are the bytes the generator draws, formatted", () => {
    const r = new Random(11);
    const twin = new Random(11);
    const v4 = r.uuid4();
    const bytes = twin.bytes(16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    expect(v4.replace(/-/g, "")).toBe(bytes.toString("hex"));
  });
});

describe("Random", () => {
  it("the same seed gives the same sequence of ids and faker values", () => {
    const a = new Random(42);
    const b = new Random(42);
    expect([a.uuid4(), a.uuid7(0), a.int(1, 6), a.faker.person.firstName()]).toEqual([b.uuid4(), b.uuid7(0), b.int(1, 6), b.faker.person.firstName()]);
  });

  it("different seeds give different ids", () => {
    expect(new Random(1).uuid4()).not.toBe(new Random(2).uuid4());
  });

  it("makes well-formed version 4 and version 7 UUIDs", () => {
    const r = new Random("x");
    const v4 = r.uuid4();
    const v7 = r.uuid7(Date.parse("2026-01-15T09:00:00Z"));
    expect(isUuid(v4) && v4[14]).toBe("4");
    expect(isUuid(v7) && v7[14]).toBe("7");
    // uuid7 starts with the millisecond timestamp
    expect(parseInt(v7.replace(/-/g, "").slice(0, 12), 16)).toBe(Date.parse("2026-01-15T09:00:00Z"));
  });

  it("uuid5 matches the agent server's default assistant id for graph 'agent'", () => {
    expect(uuid5("agent", "6ba7b821-9dad-11d1-80b4-00c04fd430c8")).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
  });

  it("restore() replays the sequence from a checkpoint, faker included", () => {
    const r = new Random(9);
    r.uuid4();
    const saved = r.checkpoint();
    const first = [r.uuid4(), r.faker.company.name()];
    r.restore(saved);
    expect([r.uuid4(), r.faker.company.name()]).toEqual(first);
  });

  it("seedFor() depends only on the seed and the label", () => {
    const a = new Random(5);
    const b = new Random(5);
    b.uuid4();
    expect(a.seedFor("deployments/3")).toBe(b.seedFor("deployments/3"));
    expect(a.seedFor("deployments/3")).not.toBe(a.seedFor("deployments/4"));
  });
});
