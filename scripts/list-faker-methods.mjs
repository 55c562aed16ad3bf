// Build step: lists the faker generators a scenario template may call (`{{faker.person.firstName}}`)
// into dist/faker-methods.json, with the faker version it ran with, so that checking a scenario's
// templates does not load faker (src/agent-server/faker-calls.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { FAKER_METHODS, listFakerMethods } = await import(join(ROOT, "dist/modules/agent-server/faker-calls.js"));
const { loadFaker } = await import(join(ROOT, "dist/modules/core/lazy-faker.js"));
const { installedPackage } = await import(join(ROOT, "dist/modules/core/lazy-modules.js"));

// Trying every generator calls the deprecated ones too, each of which warns on the console.
console.warn = () => {};
const methods = listFakerMethods(loadFaker(), [1, 2, 3, 42, 12345]);
writeFileSync(FAKER_METHODS, JSON.stringify({ faker: installedPackage("@faker-js/faker").manifest.version, methods }));
process.stderr.write(`list-faker-methods: ${methods.length} faker generators listed in dist/faker-methods.json\n`);
