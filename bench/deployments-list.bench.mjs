// GET /v2/deployments over 10,000 generated deployments (issue 3: a filtered page in single-digit
// milliseconds, no per-request copy of the collection), plus load time, reset() and heap.
// Timings are printed, never asserted: `npm run bench deployments`.
import { startMockServer } from "../dist/index.js";
import { heapMb, report, time } from "./lib.mjs";

const COUNT = 10_000;
const before = heapMb();
let t = performance.now();
const mock = await startMockServer({ port: 0, seed: 42, fixtures: ["fixtures", { generate: { deployments: { count: COUNT } } }] });
console.log(`start with ${COUNT} generated deployments         ${(performance.now() - t).toFixed(1)} ms, heap +${(heapMb() - before).toFixed(1)} MB`);

const get = (query) => fetch(`${mock.url}/v2/deployments?${query}`).then(async (r) => {
  if (r.status !== 200) throw new Error(`${query}: ${r.status} ${await r.text()}`);
  return r.arrayBuffer();
});
// The last page of an image_version seen in the data, so a filter has something to walk through.
const sample = JSON.parse(Buffer.from(await get("limit=1&offset=5000")).toString()).resources[0];
const queries = {
  "first page, no filter": "limit=20",
  "deep page, no filter (offset 9000)": "limit=100&offset=9000",
  "name_contains (common substring)": "name_contains=a&limit=20",
  "name_contains, deep (offset 2000)": "name_contains=a&limit=20&offset=2000",
  "status + deployment_type + remote_reconciled": "status=READY&deployment_type=prod&remote_reconciled=true&limit=20",
  "image_version, walks the whole list": `image_version=${sample.image_version}&limit=100&offset=100000`,
  "no match at all (scans everything)": "name_contains=no-such-deployment&limit=20",
  "deployment_ids (3 ids)": `deployment_ids=${sample.id},${sample.latest_revision_id},${sample.tenant_id}`,
};
for (const [label, query] of Object.entries(queries)) report(`GET /v2/deployments ${label}`, await time(300, () => get(query)));

// A write invalidates the cached sorted view; the next list request rebuilds it once.
report("PATCH then list (view rebuilt)", await time(50, async (i) => {
  await fetch(`${mock.url}/v2/deployments/${sample.id}`, { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ source_config: { install_command: `npm ci #${i}` } }) });
  await get("limit=20");
}, 5));

report(`reset() with ${COUNT} deployments`, await time(50, () => mock.reset(), 5));
console.log(`heap used after the run                          ${heapMb().toFixed(1)} MB`);
await mock.close();
