import { readFileSync, readdirSync } from "node:fs";
const t0 = process.cpuUsage();
const YAML = await import("yaml");
const t1 = process.cpuUsage(t0);
const files = readdirSync("scenarios").filter((f) => f.endsWith(".yaml"));
const t2 = process.cpuUsage();
for (const f of files) YAML.parseAllDocuments(readFileSync("scenarios/" + f, "utf8"));
const t3 = process.cpuUsage(t2);
console.log("import", (t1.user + t1.system) / 1000, "parse", (t3.user + t3.system) / 1000, files.length);
