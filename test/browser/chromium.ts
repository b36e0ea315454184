import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package (installed by `npm run setup`); playwright-core drives it, it downloads no browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where screenshots go for a person to look at (gitignored). */
export const OUTPUT_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-output', 'browser');
/** Screenshots the operators' guide shows (committed): docs/screenshots. */
export const DOCS_SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');

export interface Browser {
  page: Page;
  /** Saves a full-page screenshot as <dir>/<name>.png (test-output/browser by default), returns its path. */
  screenshot(name: string, dir?: string): Promise<string>;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * The one line a browser test fails with when the machine has no Chromium (a stack trace would point
 * into the test support, not at the missing package).
 */
export class ChromiumMissing extends Error {
  constructor(executablePath: string) {
    super(`Chromium not found at ${executablePath}: run \`npm run setup\` as root (it installs chromium)`);
    this.name = 'ChromiumMissing';
    this.stack = this.message;
  }
}

/** Headless Chromium with a fresh profile: no sync, no updates, no first-run screens, nothing shared. */
export async function openBrowser(executablePath = CHROMIUM): Promise<Browser> {
  await fs.access(executablePath, fs.constants.X_OK).catch(() => {
    throw new ChromiumMissing(executablePath);
  });
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-chromium-'));
  await fs.mkdir(OUTPUT_DIR, { recursive: true });
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return {
    page,
    errors,
    async screenshot(name, dir = OUTPUT_DIR) {
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      await fs.rm(profile, { recursive: true, force: true });
    },
  };
}
