import { chromium, type Browser } from '@playwright/test';
import { savePerson, type Actor } from '../../packages/engine/src/core';
import { apiTokens } from '../../packages/engine/src/db/schema';
import { chromiumArgs, chromiumExecutablePath } from '../support/browser';
import { createPerson, uniqueTeam } from '../support/factories';
import { expect, signInAs, test } from '../support/fixtures';

// The sign-in page, with or without the page to return to afterwards (?next=).
const SIGN_IN_PAGE = /\/sign-in(\?next=[^&]+)?$/;

const port = Number(process.env.HOLDFAST_E2E_PORT ?? 3100);
const attacker = `rebind.attacker.example:${port}`;
const admin: Actor = { type: 'person', id: 'ada@holdfast.demo', role: 'admin', teams: ['platform'] };

test.describe('DNS rebinding', () => {
  let browser: Browser;
  test.beforeAll(async () => {
    // A browser whose DNS answers the attacker's name with 127.0.0.1: what rebinding achieves.
    browser = await chromium.launch({
      executablePath: chromiumExecutablePath(),
      args: [...chromiumArgs, '--host-resolver-rules=MAP rebind.attacker.example 127.0.0.1'],
    });
  });
  test.afterAll(async () => browser.close());

  test('a page under a rebinding name gets neither the sign-in page nor the API', async ({ database }) => {
    const page = await browser.newPage();
    const response = await page.goto(`http://${attacker}/sign-in`);
    expect(response?.status()).toBe(400);
    await expect(page.getByText('does not answer to that host name')).toBeVisible();
    await expect(page.getByTestId('sign-in-admin')).toHaveCount(0);

    const tokensBefore = (await database.db.select().from(apiTokens)).length;
    // What the attacker's script does next, same-origin after rebinding: sign in (a server action), create a token, read.
    const statuses = await page.evaluate(async () => {
      const results: Record<string, number> = {};
      for (const path of ['/sign-in', '/settings/tokens']) {
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'next-action': '0'.repeat(40), 'content-type': 'text/plain;charset=UTF-8' },
          body: '[]',
        });
        results[`POST ${path}`] = response.status;
      }
      for (const path of ['/api/health', '/api/v1/openapi.json', '/', '/holds'])
        results[`GET ${path}`] = (await fetch(path)).status;
      return results;
    });
    expect(
      Object.values(statuses).every((status) => status === 400),
      JSON.stringify(statuses),
    ).toBe(true);
    expect((await database.db.select().from(apiTokens)).length).toBe(tokensBefore);
    await page.close();
  });

  test('a forged Host with a signed-in cookie is refused too; loopback names are served', async ({ page }) => {
    const cookies = await page.context().cookies();
    const cookie = cookies.map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const refused = await page.request.get('/settings/tokens', {
      headers: { host: attacker, origin: `http://${attacker}`, cookie },
    });
    expect(refused.status()).toBe(400);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await page.request.get('/api/health', { headers: { host } })).status(), host).toBe(200);
    }
    // A server action posted from another site's page (its Origin) is refused with a clear 403, not Next's bare 500.
    const crossSite = await page.request.post('/sign-in', {
      headers: {
        origin: 'http://evil.example',
        'next-action': '0'.repeat(40),
        'content-type': 'text/plain;charset=UTF-8',
      },
      data: '[]',
    });
    expect(crossSite.status()).toBe(403);
    // An X-Forwarded-Host is not trusted unless HOLDFAST_TRUST_FORWARDED_HEADERS=1.
    expect((await page.request.get('/api/health', { headers: { 'x-forwarded-host': attacker } })).status()).toBe(200);
  });
});

test.describe('security headers', () => {
  test('every response carries them, pages with a fresh script nonce, and HSTS only behind https', async ({ page }) => {
    const first = await page.goto('/');
    const second = await page.request.get('/');
    for (const response of [first!, second]) {
      const headers = response.headers();
      expect(headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      // Served over http here, and X-Forwarded-Proto is not trusted by default.
      expect(headers['strict-transport-security']).toBeUndefined();
    }
    const nonce = (value: string | undefined) => /'nonce-([^']+)'/.exec(value ?? '')?.[1];
    expect(nonce(first!.headers()['content-security-policy'])).not.toBe(
      nonce(second.headers()['content-security-policy']),
    );
    const forged = await page.request.get('/api/health', { headers: { 'x-forwarded-proto': 'https' } });
    expect(forged.headers()['strict-transport-security']).toBeUndefined();
    expect(forged.headers()['x-content-type-options']).toBe('nosniff');

    const script = /src="(\/_next\/static\/[^"]+\.js)"/.exec(await second.text())?.[1];
    expect(script).toBeDefined();
    expect((await page.request.get(script!)).headers()['x-content-type-options']).toBe('nosniff');
    const signIn = await page.request.get('/sign-in', { headers: { cookie: '' } });
    expect(signIn.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  test('the console works under the policy: no violations, charts and actions included', async ({ page }) => {
    // The fixture fails the test on any console error; a CSP violation is one. Listen for the event as well.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    for (const path of [
      '/',
      '/steps',
      '/holds',
      '/dead-letters',
      '/locks',
      '/keys',
      '/audit',
      '/settings/people',
      '/settings/tokens',
      '/settings/retry-pools',
      '/settings/pricing',
    ]) {
      await page.goto(path);
      await expect(page.locator('main h1').first()).toBeVisible();
    }
    // Client-side navigation and a server action still run (both need the nonced scripts).
    await page.getByRole('link', { name: 'Holds' }).first().click();
    await expect(page).toHaveURL(/\/holds/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(SIGN_IN_PAGE);
  });
});

test.describe('sessions end', () => {
  test('a cookie copied before sign-out no longer works after it', async ({ page, browser }) => {
    await signInAs(page, 'responder');
    const copied = await page.context().cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(SIGN_IN_PAGE);

    const elsewhere = await browser.newContext();
    await elsewhere.addCookies(copied);
    const stolen = await elsewhere.newPage();
    await stolen.goto('/holds');
    await expect(stolen).toHaveURL(SIGN_IN_PAGE);
    await elsewhere.close();
  });

  test('after a role or team change the old cookie is refused', async ({ page, browser, database }) => {
    const viewer = await createPerson(database, { role: 'viewer' });
    await signInAs(page, viewer);
    const copied = await page.context().cookies();
    await savePerson(
      { db: database.db, actor: admin },
      { ...viewer, teams: [...viewer.teams, uniqueTeam()], reason: 'joins another team for the test' },
    );

    const elsewhere = await browser.newContext();
    await elsewhere.addCookies(copied);
    const old = await elsewhere.newPage();
    await old.goto('/holds');
    await expect(old).toHaveURL(SIGN_IN_PAGE);
    await elsewhere.close();
  });

  test('an admin signs a person out everywhere from the People page', async ({ page, browser, database }) => {
    const responder = await createPerson(database, { role: 'responder' });
    const theirs = await browser.newContext();
    const theirPage = await theirs.newPage();
    await signInAs(theirPage, responder);

    await page.goto('/settings/people');
    await page
      .getByTestId(`sign-out-everywhere-${responder.email}`)
      .getByRole('button', { name: `Sign out ${responder.email} everywhere` })
      .click();
    await expect(page.getByTestId(`sign-out-everywhere-${responder.email}`).getByRole('status')).toHaveText(
      'Signed out',
    );

    await theirPage.goto('/holds');
    await expect(theirPage).toHaveURL(SIGN_IN_PAGE);
    await theirs.close();
    await page.goto('/audit?action=person.sessions_end');
    await expect(page.getByText(responder.email).first()).toBeVisible();
  });
});

test.describe('hostile URLs never answer 500', () => {
  const filters: Record<string, string[]> = {
    '/steps': ['agent', 'q', 'window', 'sort'],
    '/holds': ['owner', 'reason', 'view'],
    '/dead-letters': ['queue', 'agent', 'step', 'search', 'errorClass'],
    '/audit': ['actor', 'action', 'targetType', 'targetId', 'from'],
    '/keys': ['key', 'taskId', 'step', 'show'],
    '/tasks/refund-2291': ['x'],
    '/steps/demo-agent/draft_email': ['agent', 'q', 'window'],
  };

  test('a NUL in any console filter is refused, not passed to PostgreSQL', async ({ page }) => {
    for (const [path, names] of Object.entries(filters)) {
      for (const name of names) {
        const response = await page.request.get(`${path}?${name}=a%00b`);
        expect(response.status(), `${path}?${name}=a%00b`).toBeLessThan(500);
      }
    }
  });

  test('bad percent-encoding or a NUL in a route parameter is a 400 or 404 page', async ({ page }) => {
    for (const path of [
      '/tasks/%00',
      '/tasks/a%00b',
      '/tasks/%E0%A4%A',
      '/tasks/%',
      '/tasks/%FF',
      '/steps/a%00/b',
      '/steps/%E0%A4%A/b',
      '/steps/a/%ZZ',
      '/steps/a/%00',
    ]) {
      const response = await page.request.get(path);
      expect([400, 404], path).toContain(response.status());
    }
  });
});
