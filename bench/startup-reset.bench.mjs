// Start-up with the bundled fixtures, reset() of that state, and a request round trip through a
// real socket. reset() must stay well under a millisecond for the default set (issue 2).
import { createApp, mockOf, startMockServer } from "../dist/index.js";
import { heapMb, report, time } from "./lib.mjs";

const before = heapMb();
let t = performance.now();
const app = createApp({ seed: 42 });
console.log(`createApp (bundled fixtures)                     ${(performance.now() - t).toFixed(1)} ms, heap +${(heapMb() - before).toFixed(1)} MB`);

const control = mockOf(app);
report("reset() of the bundled set", await time(2000, () => control.reset()));

t = performance.now();
const mock = await startMockServer({ seed: 42 });
console.log(`startMockServer                                  ${(performance.now() - t).toFixed(1)} ms`);
report("GET /v2/auth/providers (loopback fetch)", await time(500, () => fetch(`${mock.url}/v2/auth/providers`).then((r) => r.arrayBuffer())));
report("GET /_mock/health (loopback fetch)", await time(500, () => fetch(`${mock.url}/_mock/health`).then((r) => r.arrayBuffer())));
await mock.close();
