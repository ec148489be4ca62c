import { expect, test } from '../support/fixtures';
import { expectNoSidewaysScroll } from '../support/page-width';

test('a runbook reads as on GitHub: anchored headings, sibling runbooks and console paths as links, other files as text', async ({
  page,
  expectAccessible,
}) => {
  await page.goto('/runbooks/dead-letters-waiting');
  const runbook = page.getByTestId('runbook');
  await expect(runbook.getByRole('heading', { level: 1 })).toHaveText('Dead letters waiting');
  // Each heading carries GitHub's anchor, so a link to #confirm-it-on-the-console lands on it.
  await expect(runbook.getByRole('heading', { name: 'Confirm it on the console' })).toHaveAttribute(
    'id',
    'confirm-it-on-the-console',
  );
  // A sibling runbook is a link to its console page; a console path in code is a link to that page.
  await expect(runbook.getByRole('link', { name: 'hold opened' })).toHaveAttribute('href', '/runbooks/hold-opened');
  await expect(runbook.getByRole('link', { name: '/errors', exact: true })).toHaveAttribute('href', '/errors');
  // A path with a placeholder stays code; a file of the repository is shown as its text, its path as a title.
  await expect(runbook.locator('code', { hasText: '/dead-letters?queue=<queue>' }).first()).toBeVisible();
  await expect(runbook.getByRole('link', { name: 'packages/engine/src/alerts/conditions.ts' })).toHaveCount(0);
  await expect(runbook.locator('span[title="../../packages/engine/src/alerts/conditions.ts"]')).toContainText(
    'packages/engine/src/alerts/conditions.ts',
  );
  // Numbered steps stay an ordered list.
  await expect(runbook.locator('ol').first().locator('> li').first()).toContainText('Open the Dead letters page');
  await expectAccessible();

  // Its tables scroll in their own box: the page keeps within the screen at a desk and on a phone.
  await expectNoSidewaysScroll(page, 'runbook');
});
