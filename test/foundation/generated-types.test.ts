import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateTypes, mergedSchema, OUTPUT } from "../../scripts/gen-types.mjs";

describe("types generated from the schemas", () => {
  it("src/schemas/types.gen.ts is what `npm run gen:types` writes today (run it after changing a schema)", async () => {
    const fresh = await generateTypes();
    expect(readFileSync(OUTPUT, "utf8")).toBe(fresh);
  });

  it("has one exported type per $defs entry, named after it", async () => {
    const text = readFileSync(OUTPUT, "utf8");
    const names = Object.keys(mergedSchema().$defs);
    expect(names).toEqual(expect.arrayContaining(["Scenario", "Turn", "Ending", "ScenarioEvent", "Deployment", "Feedback", "FixtureFile"]));
    for (const name of names) expect(text, name).toMatch(new RegExp(`^export (interface|type) ${name}\\b`, "m"));
  });
});
