import { afterEach } from "vitest";
import { takeResponseMismatches } from "../../src/http/response-check.js";

// Every JSON answer the suite receives from a declared route is checked against its declared schema
// (src/http/response-check.ts); a test during which one did not fit fails here.
afterEach(() => {
  const mismatches = takeResponseMismatches();
  if (mismatches.length) throw new Error(`responses that do not fit their declared schemas:\n${mismatches.join("\n")}`);
});
