import { isPlainObject } from "../core/json.js";
import { ControlError } from "../control-error.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import type { ResetScope } from "../context.js";
import type { MockControl, OverrideHandle, RevisionStatus } from "../mock-control.js";

const S = "admin/control.json#/$defs/";
const LIFECYCLE = "admin/deployment-lifecycle.json#/$defs/";
const CLOCK_USAGE = 'Send {"advance": "<duration, e.g. 5m or 1500ms>"} or {"set": "<ISO instant>"}';

/**
 * Changing the mock: `/_mock/health`, the clock, reset, scenarios, overrides (use()) and the deployment
 * lifecycle — each a thin adapter over MockControl.
 */
export function controlRoutes(control: MockControl): RouteSpec[] {
  // use()'s handles by the id POST /_mock/overrides gave out. A reset("scenarios") drops the overrides
  // themselves; calling a handle after that does nothing, as in the library. Ids are not given out
  // again after a reset, so an old handle cannot undo a newer override.
  const overrides = new Map<string, OverrideHandle>();
  let overrideIds = 0;
  return [
    route({
      name: "admin.health",
      method: "GET",
      path: "/health",
      responses: { 200: `${S}Ok` },
      handler: () => ({ ok: true }),
    }),
    route({
      name: "admin.clock.get",
      method: "GET",
      path: "/clock",
      summary: "The mock's time and how its clock runs",
      responses: { 200: `${S}ClockState` },
      handler: () => control.clock.state(),
    }),
    route<{ body: Record<string, unknown> }>({
      name: "admin.clock.move",
      method: "POST",
      path: "/clock",
      summary: 'Move the clock: {"advance": "5m"} or {"set": "<ISO>"}',
      body: `${S}ClockRequest`,
      emptyBody: {},
      responses: { 200: `${S}ClockState` },
      handler: ({ body }) => {
        if (!isPlainObject(body) || (body.advance === undefined) === (body.set === undefined)) throw new ControlError(400, CLOCK_USAGE);
        try {
          if (body.advance !== undefined) control.clock.advance(body.advance as string | number);
          else control.clock.set(body.set as string);
        } catch (err) {
          // The library's refusals (a bad duration, a jump past what a Date holds) in the admin's words.
          if (err instanceof TypeError || err instanceof RangeError) throw new ControlError(400, err.message);
          throw err;
        }
        return control.clock.state();
      },
    }),
    route<{ body: { scope?: ResetScope } }>({
      name: "admin.reset",
      method: "POST",
      path: "/reset",
      summary: "Back to the state right after start, or one part of it",
      body: `${S}ResetRequest`,
      emptyBody: {},
      responses: { 200: `${S}ResetResponse` },
      handler: ({ body }) => {
        const scope = body.scope ?? "all";
        control.reset(scope);
        return { ok: true, scope };
      },
    }),
    route({
      name: "admin.scenarios.list",
      method: "GET",
      path: "/scenarios",
      summary: "The loaded scenarios in match order",
      responses: { 200: `${S}ScenarioList` },
      handler: () => {
        const items = control.scenarios();
        return { items, count: items.length };
      },
    }),
    route<{ body: string; headers: { "content-type"?: string } }>({
      name: "admin.scenarios.load",
      method: "POST",
      path: "/scenarios",
      summary: "Load a scenario file's content (JSON or YAML)",
      bodyKind: "text",
      headers: { type: "object", properties: { "content-type": { type: "string" } } },
      responses: { 200: `${S}ScenariosLoaded` },
      handler: ({ body, headers }) => {
        const loaded = control.loadScenarioText(typeof body === "string" ? body : "", /json/i.test(headers["content-type"] ?? "") ? "json" : "yaml");
        return { loaded, count: loaded.length };
      },
    }),
    route<{ body: string; headers: { "content-type"?: string } }>({
      name: "admin.overrides.add",
      method: "POST",
      path: "/overrides",
      summary: "use(): scenarios (JSON or YAML) that win over every other until removed",
      bodyKind: "text",
      headers: { type: "object", properties: { "content-type": { type: "string" } } },
      responses: { 201: `${S}OverrideAdded` },
      handler: ({ body, headers }) => {
        const off = control.useScenarioText(typeof body === "string" ? body : "", /json/i.test(headers["content-type"] ?? "") ? "json" : "yaml");
        const id = `override-${++overrideIds}`;
        overrides.set(id, off);
        return { id, names: off.names };
      },
    }),
    route<{ params: { id: string } }>({
      name: "admin.overrides.remove",
      method: "DELETE",
      path: "/overrides/{id}",
      summary: "Undo a use(): its scenarios go, what they hid comes back",
      params: object({ id: { type: "string" } }),
      responses: { 200: `${S}OverrideRemoved` },
      handler: ({ params }) => {
        const off = overrides.get(params.id);
        if (!off) throw new ControlError(404, `Override ${params.id} not found (each is removed once)`);
        overrides.delete(params.id);
        off();
        return { ok: true, id: params.id, names: off.names };
      },
    }),
    route<{ params: { name: string } }>({
      name: "admin.scenarios.remove",
      method: "DELETE",
      path: "/scenarios/{name}",
      params: object({ name: { type: "string" } }),
      responses: { 200: `${S}ScenarioRemoved` },
      handler: ({ params }) => {
        control.removeScenario(params.name);
        return { ok: true, name: params.name };
      },
    }),
    route<{ params: { deployment_id: string }; body: { at: RevisionStatus } }>({
      name: "admin.deployments.fail",
      method: "POST",
      path: "/deployments/{deployment_id}/fail",
      summary: "Make the deployment's revision fail at a lifecycle step",
      params: object({ deployment_id: UUID }),
      body: `${LIFECYCLE}FailRequest`,
      responses: { 200: `${S}FailScripted` },
      handler: ({ params, body }) => control.failDeployment(params.deployment_id, body.at),
    }),
    route<{ params: { deployment_id: string }; body: { steps: number } }>({
      name: "admin.deployments.advance",
      method: "POST",
      path: "/deployments/{deployment_id}/advance",
      summary: "Move the deployment's in-flight revision on",
      params: object({ deployment_id: UUID }),
      body: `${LIFECYCLE}AdvanceRequest`,
      emptyBody: {},
      responses: { 200: `${S}Advanced` },
      handler: ({ params, body }) => control.advanceDeployment(params.deployment_id, body.steps),
    }),
  ];
}
