import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const root = new URL("../../", import.meta.url);

it("the README's feedback example is readme-example.test.ts, word for word (only the import differs)", () => {
  const readme = readFileSync(new URL("README.md", root), "utf8");
  const section = readme.split("<!-- section:assert-on-feedback -->")[1]?.split("<!-- /section:assert-on-feedback -->")[0] ?? "";
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const test = readFileSync(new URL("test/tracing/readme-example.test.ts", root), "utf8");
  expect(example).toBe(test.replace('from "../../src/index.js";', 'from "agent-platform-mock";'));
});
