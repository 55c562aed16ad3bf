import type { Reporter, TestModule } from "vitest/node";
import { NO_CHROMIUM } from "./chromium.js";

/** One line under vitest's summary when browser tests were skipped for want of Chromium. */
export default class BrowserNotice implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const module of modules) for (const test of module.children.allTests("skipped")) {
      const result = test.result();
      if (result.state === "skipped" && result.note === NO_CHROMIUM) skipped++;
    }
    if (skipped > 0) process.stdout.write(`\n  Browser tests: ${skipped} skipped — ${NO_CHROMIUM}.\n\n`);
  }
}
