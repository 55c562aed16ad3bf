import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import type { ControlPlaneRoutes } from "./index.js";
import type { Tenancy } from "./tenancy.js";

// Placeholder: filled in by the issue that owns these routes.
export function deploymentsRoutes(_ctx: MockContext, _on: ControlPlaneRoutes, _fixtures: FixtureSet, _tenancy: Tenancy): void {}
