import { expect, test } from '../support/fixtures';

test('/favicon.ico, which Chromium asks for when a navigation drops the icon link, answers with the icon', async ({
  page,
}) => {
  // Signed in, as a console page asks for it.
  await page.goto('/');
  const answer = await page.request.get('/favicon.ico', { maxRedirects: 0 });
  expect(answer.status()).toBe(200);
  expect(answer.headers()['content-type']).toContain('image/svg+xml');
  expect(await answer.text()).toBe(await (await page.request.get('/icon.svg')).text());
});
