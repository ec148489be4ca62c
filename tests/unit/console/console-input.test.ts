import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeRouteParam } from '../../../packages/engine/src/core/kernel/console-text-input';
import { auditFilter } from '../../../lib/filters/audit';
import { deadLetterFilter } from '../../../packages/engine/src/core/dead-letters/dead-letter-filter';
import { holdsFilter } from '../../../lib/filters/holds';
import { parseStepsView } from '../../../lib/filters/steps';

describe('console text inputs refuse NUL (PostgreSQL text cannot hold it: a 500 before)', () => {
  it('in every filter schema', () => {
    expect(holdsFilter.safeParse({ owner: 'team:a\u0000' }).success).toBe(false);
    for (const field of ['queue', 'agent', 'step', 'search'])
      expect(deadLetterFilter.safeParse({ [field]: 'x\u0000y' }).success, field).toBe(false);
    for (const field of ['actor', 'action', 'targetType', 'targetId', 'from'])
      expect(auditFilter.safeParse({ [field]: '\u0000' }).success, field).toBe(false);
    // Good values still pass, blank still means absent.
    expect(holdsFilter.parse({ owner: ' team:payments ' }).owner).toBe('team:payments');
    expect(deadLetterFilter.parse({ search: '' }).search).toBeUndefined();
    expect(auditFilter.parse({ from: '2026-11-30T08:00' }).from).toEqual(new Date('2026-11-30T08:00Z'));
  });

  it('in the steps view, which ignores the parameter with a notice that does not echo it', () => {
    const view = parseStepsView({ agent: 'a\u0000', q: 'b\u0000' }, new Date('2026-11-30T12:00:00Z'));
    expect(view.agent).toBeUndefined();
    expect(view.search).toBeUndefined();
    expect(view.notices).toEqual([
      'Ignored agent: must not contain NUL characters',
      'Ignored q: must not contain NUL characters',
    ]);
  });

  it('in route parameters, with bad percent-encoding too', () => {
    expect(decodeRouteParam('refund-2291')).toBe('refund-2291');
    expect(decodeRouteParam('50%25%20off')).toBe('50% off');
    for (const raw of ['%E0%A4%A', '%', '%FF', '%ZZ', 'a%00b']) expect(decodeRouteParam(raw), raw).toBeUndefined();
  });
});

describe('the insecure demo banner', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  const render = async () => {
    vi.resetModules(); // packages/engine/src/env.ts reads the environment once per module instance
    const { InsecureDemoBanner } = await import('../../../components/layout/insecure-demo-banner');
    return renderToStaticMarkup(createElement(InsecureDemoBanner));
  };

  it('shows while demo sign-in runs with HOLDFAST_INSECURE_DEMO=1, and not otherwise', async () => {
    vi.stubEnv('AUTH_MODE', 'demo');
    vi.stubEnv('HOLDFAST_INSECURE_DEMO', '1');
    expect(await render()).toContain('anyone who can reach this address can sign in as the admin');
    vi.stubEnv('HOLDFAST_INSECURE_DEMO', '0');
    expect(await render()).toBe('');
  });
});
