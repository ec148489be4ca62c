import { consoleAreas } from '../../lib/navigation';
import { expect, test } from '../support/fixtures';

for (const area of consoleAreas) {
  test(`${area.label} is reachable from the sidebar and marked as the current page`, async ({
    page,
    expectAccessible,
  }) => {
    await page.goto('/');
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: area.label, exact: true })
      .click();
    await expect(page).toHaveURL(area.href);
    await expect(page.getByRole('heading', { level: 1, name: area.label })).toBeVisible();
    await expect(page.getByRole('link', { name: area.label, exact: true })).toHaveAttribute('aria-current', 'page');
    await expectAccessible();
  });
}

test('the skip link and the sidebar work from the keyboard', async ({ page }) => {
  await page.goto('/');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Overview', exact: true })).toBeFocused();
  // The next area in the sidebar's order, opened with Enter.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL('/agents');
});

test('the theme toggle switches to light and dark, and remembers the choice', async ({ page, expectAccessible }) => {
  await page.goto('/');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'system');

  const toggle = page.getByTestId('theme-toggle');
  await toggle.click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await toggle.click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect(toggle).toHaveText('Dark theme');
  await expectAccessible();

  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('theme-toggle')).toHaveText('Dark theme');
});

test('health answers 200 with the database and migration state', async ({ request }) => {
  const response = await request.get('/api/health');
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({
    status: 'ok',
    database: { reachable: true },
    migrations: { upToDate: true, pending: [] },
  });
});

test('the step figures endpoint refuses a bad window with a problem response', async ({ page }) => {
  const response = await page.request.get('/api/console/step-stats?window=forever');
  expect(response.status()).toBe(400);
  expect(response.headers()['content-type']).toContain('application/problem+json');
  expect(await response.json()).toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { window: [expect.any(String)] } });
});

test('My holds is one click from the sidebar: the holds the person or their teams own', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'My holds', exact: true }).click();
  await expect(page).toHaveURL('/holds?mine=1');
  await expect(page.getByRole('checkbox', { name: "Mine and my teams'" })).toBeChecked();
});
