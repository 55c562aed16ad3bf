import type { MockClock } from "../../core/clock.js";
import type { Faults, StreamFault } from "../faults.js";
import { hangUp, reply, TextReply } from "../route.js";
import type { MountedRoute, Stage } from "../exchange.js";

/**
 * Applies the first fault rule that hits the request (DESIGN §8, docs/faults.md). It runs before the
 * request is validated, as the network or a proxy fails whatever the request says: `latency` waits
 * on the mock's clock, `status` answers in the route's stead, `reset` and `empty` hang up, `malformed`
 * and `drip` change how the JSON answer is written (write), and the stream kinds go to the route's
 * stream through its RequestScope.
 */
export function fault(faults: Faults, clock: MockClock): Stage {
  return (x) => {
    const { module, spec } = x.route as MountedRoute;
    const hit = faults.pick(x.req, module, spec);
    if (!hit) return;
    const { id, kind, params: p } = hit;
    x.fault = { id, kind };
    switch (kind) {
      case "latency": {
        const controller = new AbortController();
        x.res.once("close", () => controller.abort());
        // A client that leaves during the wait gets nothing more.
        return clock.sleep(faults.latencyMs(p), controller.signal).catch(() => void (x.answer = { value: hangUp("destroy") }));
      }
      case "status": {
        const headers = (p.headers as Record<string, string> | undefined) ?? {};
        x.faulted = true;
        const value = typeof p.body === "string" ? new TextReply(p.status as number, p.body, { ...headers, "Content-Type": "text/plain; charset=utf-8" }) : reply(p.status as number, p.body, headers);
        x.answer = { value };
        return;
      }
      case "reset":
        // An RST before any byte of the answer, as a proxy that drops the connection.
        x.faulted = true;
        x.answer = { value: hangUp("reset") };
        return;
      case "empty":
        // The connection closes with nothing written (curl: "Empty reply from server").
        x.faulted = true;
        x.answer = { value: hangUp("destroy") };
        return;
      case "malformed":
        x.rewrite = { kind: "malformed" };
        return;
      case "drip":
        x.rewrite = { kind: "drip", bytes: p.bytes as number, everyMs: p.every_ms as number };
        return;
      default:
        x.streamFault = {
          id,
          kind: kind as StreamFault["kind"],
          afterEvents: p.after_events as number,
          error: (p.error as string | undefined) ?? "InjectedFault",
          message: (p.message as string | undefined) ?? "fault injected by agent-platform-mock",
        };
    }
  };
}
