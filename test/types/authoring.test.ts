import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, defineFixtures, defineScenario, mockOf, type FixtureDocument, type MockOptions, type Scenario } from "../../src/index.js";

// Type-level checks: this file is compiled by `npm run typecheck` (part of `npm test`). Each
// `@ts-expect-error` line must be a compile error, so a public type that stopped catching the typo
// below it fails the build. The functions that hold them are never called.

function typosFailToCompile(): void {
  defineScenario({
    name: "typo",
    // @ts-expect-error -- misspelt key
    evnets: [{ event: "values", data: {} }],
  });
  // @ts-expect-error -- not an ending
  defineScenario({ name: "typo", end: "sucess" });
  // @ts-expect-error -- an ending object names one of error, interrupt, http
  defineScenario({ name: "typo", end: { htp: { status: 500 } } });
  // @ts-expect-error -- http.status is a number
  defineScenario({ name: "typo", end: { http: { status: "500" } } });
  // @ts-expect-error -- an event needs its data
  defineScenario({ name: "typo", events: [{ event: "values" }] });
  // @ts-expect-error -- delay_ms is a number
  defineScenario({ name: "typo", turns: [{ events: [{ event: "values", data: 1, delay_ms: "1s" }] }] });
  // @ts-expect-error -- a scenario has a name
  defineScenario({ events: [] });

  const options: MockOptions[] = [
    // @ts-expect-error -- inline scenarios are typed where they are passed, too
    { scenarios: [{ name: "x", matchh: { assistant_id: "agent" } }] },
    // @ts-expect-error -- inline fixtures: an unknown section
    { fixtures: { deployment: [] } },
    // @ts-expect-error -- inline fixtures: a field of the wrong type (uses_pkce is a boolean)
    { fixtures: { oauth_providers: [{ uses_pkce: "yes" }] } },
    // @ts-expect-error -- inline fixtures: an unknown deployment status
    { fixtures: [{ deployments: [{ name: "a", status: "LIVE" }] }] },
  ];
  // @ts-expect-error -- an unknown fixture-only key of a revision
  defineFixtures({ deployments: [{ revisions: [{ fail_at: "DEPLOYED" }] }] });
  void options;
}
void typosFailToCompile;

describe("typed authoring (defineScenario, inline scenarios and fixtures)", () => {
  it("defineScenario returns its argument; a typed scenario loads and plays", async () => {
    const scenario: Scenario = defineScenario({
      $schema: "agent-platform-mock/schemas/scenario.json",
      name: "typed",
      match: { assistant_id: "agent" },
      turns: [{ events: [{ event: "values", data: { said: "{{input.text}}" } }], end: "success" }],
    });
    const fixtures: FixtureDocument = defineFixtures({ deployments: [{ name: "typed-deployment", source: "github", status: "READY", revisions: [{ status: "DEPLOYED" }] }] });
    expect(scenario.name).toBe("typed");
    const app = createApp({ seed: 1, fixtures: ["fixtures/organization.json", "fixtures/integrations.json", fixtures], scenarios: [scenario] });
    const run = await request(app).post("/runs/wait").send({ assistant_id: "agent", input: { text: "hi" } }).expect(200);
    expect(run.body).toEqual({ said: "hi" });
    expect(mockOf(app).requests({ path: "/runs" }).map((r) => r.status)).toEqual([200]);
    const listed = await request(app).get("/v2/deployments").expect(200);
    expect(listed.body.resources.map((d: { name: string }) => d.name)).toEqual(["typed-deployment"]);
  });
});
