import { Router } from "express";
import type { MockContext } from "../context.js";

// Placeholder until the tracing service lands (issue #5).
export function tracingService(_ctx: MockContext): Router {
  return Router();
}
