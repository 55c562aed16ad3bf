import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH, else a system browser, else one Playwright
 * installed (`npx playwright install chromium`). Undefined when there is none.
 */
export const CHROMIUM: string | undefined = findChromium();

/** Why browser tests were skipped, and how to run them: shown beside each and once in the summary. */
export const NO_CHROMIUM = "no Chromium found: install one (apt-get install chromium, or npx playwright install chromium) or set CHROMIUM_PATH";

/**
 * Skips the calling test when there is no browser (a fresh machine passes without one), except under
 * CI=true, where a missing browser must fail the run rather than go unnoticed.
 */
export function needChromium(ctx: { skip: (note?: string) => never }): string {
  if (CHROMIUM) return CHROMIUM;
  if (process.env.CI === "true") throw new Error(`${NO_CHROMIUM} (CI=true requires the browser tests to run)`);
  return ctx.skip(NO_CHROMIUM);
}

function findChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named) return existsSync(named) ? named : undefined;
  const system = [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  ].find((path) => existsSync(path));
  if (system) return system;
  try {
    const installed = chromium.executablePath();
    return installed && existsSync(installed) ? installed : undefined;
  } catch {
    return undefined;
  }
}
