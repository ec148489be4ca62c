import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { proxy } from '../../../proxy';

/**
 * Server actions are POSTs any page could aim at the console. Next compares an
 * action's Origin with its Host, but lets one with no Origin through; the
 * proxy refuses both before Next sees them. The agents' API has no Origin to
 * check (Bearer tokens, which no browser sends on its own) and is let through.
 */
const ACTION = '0'.repeat(40);

function post(path: string, headers: Record<string, string>) {
  return new NextRequest(`http://localhost:3000${path}`, {
    method: 'POST',
    headers: { host: 'localhost:3000', 'content-type': 'text/plain;charset=UTF-8', ...headers },
    body: '[]',
  });
}

describe('server actions and their Origin', () => {
  it('refuses an action with no Origin header 403, saying why', async () => {
    const response = await proxy(post('/settings/tokens', { 'next-action': ACTION }));
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('must carry an Origin header');
  });

  it('refuses a form posted to a page without JavaScript (no action header) with no Origin too', async () => {
    const response = await proxy(post('/holds', { 'content-type': 'multipart/form-data; boundary=x' }));
    expect(response.status).toBe(403);
  });

  it("refuses another site's Origin, and lets this Holdfast's own through to the sign-in check", async () => {
    const crossSite = await proxy(post('/settings/tokens', { 'next-action': ACTION, origin: 'http://evil.example' }));
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain("this Holdfast's own pages only");
    const own = await proxy(post('/settings/tokens', { 'next-action': ACTION, origin: 'http://localhost:3000' }));
    // Not signed in: sent to sign in, not refused for its Origin.
    expect(own.status).not.toBe(403);
    expect(own.headers.get('location')).toContain('/sign-in');
  });

  it.each([
    ['http://localhost:1', 'localhost:1 is not localhost:3000'],
    ['http://localhost', 'localhost:80 is not localhost:3000'],
    ['http://127.0.0.1:3000', '127.0.0.1:3000 is not localhost:3000'],
    ['null', 'Origin "null" is not localhost:3000'],
  ])('refuses an Origin %s of another port or name than the request came to, 403 saying which', async (origin, why) => {
    const response = await proxy(post('/settings/tokens', { 'next-action': ACTION, origin }));
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text).toContain("this Holdfast's own pages only");
    expect(text).toContain(why);
  });

  it('counts a port left out as its scheme default, on both sides', async () => {
    const onPort80 = (origin: string) =>
      proxy(
        new NextRequest('http://localhost/holds', {
          method: 'POST',
          headers: { host: 'localhost', origin, 'next-action': ACTION },
          body: '[]',
        }),
      );
    expect((await onPort80('http://localhost')).headers.get('location')).toContain('/sign-in');
    expect((await onPort80('http://localhost:80')).headers.get('location')).toContain('/sign-in');
    expect((await onPort80('https://localhost')).status).toBe(403);
    expect((await onPort80('http://localhost:8080')).status).toBe(403);
  });

  it("lets the agents' API through without an Origin", async () => {
    const response = await proxy(post('/api/v1/attempts', { authorization: 'Bearer hf_x' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-middleware-next')).toBe('1');
  });
});
