import { expect, seriousViolations, test } from '../support/fixtures';

// The check every page's test ends with (expectAccessible) must still see what it is there for: here a console
// page is given an image without a text, a button without a name and text too faint to read, and the check must
// name all three.
test('the accessibility check names serious violations added to a console page', async ({ page }) => {
  await page.goto('/holds');
  await expect(page.getByRole('heading', { level: 1, name: 'Holds' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.evaluate(() => {
    const main = document.querySelector('main') ?? document.body;
    const image = document.createElement('img');
    image.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    const button = document.createElement('button');
    const faint = document.createElement('p');
    faint.textContent = 'Text nobody can read';
    faint.style.cssText = 'color: #f4f4f4; background: #ffffff';
    main.append(image, button, faint);
  });
  const found = (await seriousViolations(page)).map((line) => line.split(':')[0]);
  expect(found).toEqual(expect.arrayContaining(['image-alt', 'button-name', 'color-contrast']));
});
