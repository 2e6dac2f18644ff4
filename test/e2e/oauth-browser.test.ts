// A real browser on the sandbox's consent page: Debian's chromium driven by playwright-core
// approves (the CLI stores the Grant) or denies (the CLI exits 3) a `svc auth login`.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, startSandbox, tempDirs, type SandboxProcess } from './helpers.js';
import { fixtureWithOwnRedirect, startLogin, type OAuthFixture } from './oauth-fixture.js';
import { requireTools } from './require-tools.js';

const skip = requireTools(['chromium']);
const dirs = tempDirs();
let sandbox: SandboxProcess;
let fixture: OAuthFixture;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  fixture = await fixtureWithOwnRedirect(dirs);
  sandbox = await startSandbox(['--fixture', fixture.path]);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
  await dirs.cleanup();
});

describe.skipIf(skip)('auth login in a real browser', () => {
  it('approve: the consent page shows the application, the CLI stores the Grant', async () => {
    const home = await makeSvcHome(dirs);
    const login = await startLogin(home, sandbox.url, fixture);
    expect(new URL(login.url).pathname).toBe('/oauth2/authorize');
    const page = await browser.newPage();
    const response = await page.goto(login.url);
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    await expect(page.content()).resolves.toContain('Sandbox POS');
    await page.screenshot({ path: `${await dirs.make('svc-shot-')}/consent.png`, fullPage: true });
    await page.getByRole('checkbox').first().check();
    await page.getByRole('button', { name: /approve/i }).click();
    await page.waitForURL((u) => u.toString().startsWith(login.redirectUri));
    await expect(page.content()).resolves.toMatch(/close this (tab|window)/i);
    const result = await login.child;
    expect(result.exitCode, login.stderr()).toBe(0);
    const grants = await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: sandbox.url } });
    expect(grants.exitCode).toBe(0);
    const list = JSON.parse(grants.stdout) as { grant_id: string }[];
    expect(list.length).toBeGreaterThanOrEqual(1);
    await page.close();
  });

  it('select all: one box approves every company offered (a platform of 5), each a Grant', async () => {
    const many = await startSandbox(['--fixture', fixture.path, '--companies', '5']);
    try {
      const home = await makeSvcHome(dirs);
      const login = await startLogin(home, many.url, fixture);
      const page = await browser.newPage();
      await page.goto(login.url);
      const companies = await page.locator('fieldset').count();
      expect(companies).toBeGreaterThanOrEqual(5);
      await page.getByRole('checkbox', { name: new RegExp(`All ${companies} companies`) }).check();
      await page.getByRole('button', { name: /approve/i }).click();
      await page.waitForURL((u) => u.toString().startsWith(login.redirectUri));
      const result = await login.child;
      expect(result.exitCode, login.stderr()).toBe(0);
      const grants = JSON.parse((await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: many.url } })).stdout) as unknown[];
      expect(grants).toHaveLength(companies);
      await page.close();
    } finally {
      await many.stop();
    }
  });

  it('deny: the CLI exits 3 and stores nothing', async () => {
    const home = await makeSvcHome(dirs);
    const login = await startLogin(home, sandbox.url, fixture);
    const page = await browser.newPage();
    await page.goto(login.url);
    await page.getByRole('button', { name: /deny/i }).click();
    const result = await login.child;
    expect(result.exitCode, login.stderr()).toBe(3);
    expect(login.stderr()).toMatch(/denied/i);
    const grants = await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: sandbox.url } });
    expect(JSON.parse(grants.stdout)).toEqual([]);
    await page.close();
  });
});
