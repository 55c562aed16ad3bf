import type { Exchange, MountedRoute, Stage } from "../exchange.js";
import type { RouteInput } from "../route.js";

/**
 * Calls the route's handler with its validated input. What it returns (or its promise gives) is the
 * answer; what it throws goes through the module's `mapError` (the admin API maps ControlError).
 */
export const handle: Stage = (x) => {
  const { module, spec } = x.route as MountedRoute;
  const fail = (err: unknown) => {
    throw module.mapError?.(err) ?? err;
  };
  let result: unknown;
  try {
    result = spec.handler(x.input as RouteInput);
  } catch (err) {
    fail(err);
  }
  // Most handlers answer synchronously: no promise and microtask per request for them.
  if (result instanceof Promise) return result.then((value: unknown) => answer(x, value), fail);
  answer(x, result);
};

function answer(x: Exchange, value: unknown): void {
  x.answer = { value };
}
