import type { Request } from "express";
import { validateBody } from "../http/validate.js";
import { tracingErrors } from "./errors.js";

/**
 * The request's JSON body, validated against its schema. A body is required: FastAPI answers an empty
 * one (which the JSON parser reads as `{}`) with 422 `missing` at ["body"].
 */
export function requiredBody<T>(ref: string, req: Request): T {
  if (req.body === undefined || req.headers["content-length"] === "0") throw tracingErrors.bodyMissing();
  return validateBody<T>(ref, req.body);
}
