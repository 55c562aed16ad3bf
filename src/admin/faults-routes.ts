import { object, route, type RouteSpec } from "../http/route.js";
import type { FaultRuleInput } from "../http/faults.js";
import type { MockControl } from "../mock-control.js";

const F = "admin/fault.json#/$defs/";

/** `/_mock/faults` (DESIGN §8): add, list (with `fired` counts), remove one, remove all. */
export function faultsRoutes(control: MockControl): RouteSpec[] {
  return [
    route<{ body: FaultRuleInput }>({
      name: "admin.faults.add",
      method: "POST",
      path: "/faults",
      summary: "Add a fault rule",
      // Checked by the control surface, so the library and HTTP refuse a rule with the same problems.
      body: { type: "object" },
      responses: { 201: `${F}FaultRule` },
      handler: ({ body }) => {
        const handle = control.faults.add(body);
        return control.faults.list().find((r) => r.id === handle.id);
      },
    }),
    route({
      name: "admin.faults.list",
      method: "GET",
      path: "/faults",
      summary: "The fault rules, in the order they are tried, with how often each fired",
      responses: { 200: `${F}FaultRuleItems` },
      handler: () => {
        const items = control.faults.list();
        return { items, count: items.length };
      },
    }),
    route<{ params: { id: string } }>({
      name: "admin.faults.remove",
      method: "DELETE",
      path: "/faults/{id}",
      params: object({ id: { type: "string" } }),
      responses: { 200: "admin/control.json#/$defs/Ok" },
      handler: ({ params }) => {
        control.faults.remove(params.id);
        return { ok: true, id: params.id };
      },
    }),
    route({
      name: "admin.faults.clear",
      method: "DELETE",
      path: "/faults",
      summary: "Remove every fault rule",
      responses: { 200: "admin/control.json#/$defs/Ok" },
      handler: () => {
        control.faults.clear();
        return { ok: true };
      },
    }),
  ];
}
