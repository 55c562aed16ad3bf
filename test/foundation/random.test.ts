import { describe, expect, it } from "vitest";
import { Random, isUuid, uuid5, uuidBytes } from "../../src/core/random.js";

describe("uuid5", () => {
  it("gives RFC 4122's example", () => {
    // RFC 4122 appendix B's example (as corrected by the errata): the DNS namespace and "www.example.com".
    expect(uuid5("www.example.com", uuidBytes("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
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
    expect(uuid5("agent", uuidBytes("6ba7b821-9dad-11d1-80b4-00c04fd430c8"))).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
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
