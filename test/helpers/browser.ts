// Shared by the console browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser),
// the console bundle built from the current sources, a screenshots folder, and page errors / CSP refusals collected.
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Test } from 'tap';
import { buildConsoleBundle } from '../../core/build/console-bundle.js';
import type { TestApp } from './create-test-app.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots for a human to look at. */
export const SHOTS = resolve('test/artifacts/console');

/**
 * A visitor whose browser reads Chinese: the console follows the browser's language, and Playwright's contexts
 * are en-US unless told, so tests written for the console's Chinese open their contexts with this.
 */
export const CHINESE_VISITOR = { locale: 'zh-CN' } as const;

/** True when Chromium is there; otherwise plans the file to 0 with a skip message naming `what`. */
export function haveChromium(t: Test, what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  t.plan(0, `${what} skipped: ${CHROMIUM} is missing (install Debian's chromium package; no browser is downloaded)`);
  return false;
}

/** The browser must run the sources as they are now, not whatever the last npm install bundled. */
export async function prepareConsole(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await buildConsoleBundle(undefined, { quiet: true });
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface ConsoleInBrowser {
  h: TestApp;
  browser: Browser;
  /** http://127.0.0.1:<the app's port> */
  base: string;
}

/**
 * The set-up of a console browser test file: before its tests, the console bundle, the app (from `start`) and the
 * browser, handed to `ready`; at teardown the browser closes, then the app.
 */
export function consoleInBrowser(t: Test, start: () => Promise<TestApp>, ready: (x: ConsoleInBrowser) => void): void {
  let h: TestApp | undefined;
  let browser: Browser | undefined;
  t.before(async () => {
    await prepareConsole();
    h = await start();
    const base = `http://127.0.0.1:${h.client.port}`;
    browser = await launchBrowser();
    ready({ h, browser, base });
  });
  t.teardown(async () => {
    await browser?.close();
    await h?.close();
  });
}

/** Collects the page's errors, and (unless csp is false) its Content Security Policy refusals, into problems. */
export function watchProblems(page: Page, problems: string[], opts: { csp?: boolean } = {}): void {
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  if (opts.csp === false) return;
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
}
