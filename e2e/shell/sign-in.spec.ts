import { expect, signInAs, test } from '../support/fixtures';

test('a visitor who is not signed in is sent to sign in; health stays open', async ({
  anonymousPage: page,
  expectAccessible,
}) => {
  await page.goto('/holds');
  await expect(page).toHaveURL('/sign-in?next=%2Fholds');
  await expect(page.getByRole('heading', { name: 'Sign in to Holdfast' })).toBeVisible();
  await expectAccessible();

  expect((await page.request.get('/api/console/step-stats')).status()).toBe(401);
  expect((await page.request.get('/api/health')).status()).toBe(200);
  // The sign-in page's logo loads for a visitor who is not signed in (it once redirected to sign-in itself).
  const logo = await page.request.get('/logo.svg', { maxRedirects: 0 });
  expect([logo.status(), logo.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
  await expect
    .poll(() =>
      page
        .locator('img[src="/logo.svg"]')
        .first()
        .evaluate((image: HTMLImageElement) => image.naturalWidth),
    )
    .toBeGreaterThan(0);
});

for (const role of ['viewer', 'responder', 'admin'] as const) {
  test(`signs in as the demo ${role}, and out again`, async ({ anonymousPage: page }) => {
    await signInAs(page, role);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL('/sign-in');
    await page.goto('/');
    await expect(page).toHaveURL('/sign-in');
  });
}

test('a shared link opened while signed out is where sign-in leads; another site never is', async ({
  anonymousPage: page,
}) => {
  await page.goto('/steps?agent=research&window=7d');
  await expect(page).toHaveURL('/sign-in?next=%2Fsteps%3Fagent%3Dresearch%26window%3D7d');
  await page.getByTestId('sign-in-responder').first().click();
  await expect(page).toHaveURL('/steps?agent=research&window=7d');
  await expect(page.getByTestId('signed-in-role')).toHaveText('responder');

  await page.context().clearCookies();
  await page.goto('/sign-in?next=%2F%2Fevil.example%2Fphish');
  await page.getByTestId('sign-in-viewer').first().click();
  await expect(page).toHaveURL('/');
});

test('the session cookie is httpOnly and SameSite=Lax', async ({ page }) => {
  const session = (await page.context().cookies()).find((cookie) => cookie.name === 'holdfast_session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  expect(session?.expires).toBeGreaterThan(Date.now() / 1000);
});
