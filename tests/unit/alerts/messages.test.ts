import { describe, expect, it } from 'vitest';
import { decideDelivery, describeFailure, retryAfterMs } from '../../../packages/engine/src/alerts/delivery-policy';
import {
  absoluteLink,
  escapeSlackText,
  slackBody,
  webhookBody,
  type AlertMessage,
} from '../../../packages/engine/src/alerts/messages';

const message: AlertMessage = {
  eventId: '6f1c2d0e-8a4b-4c3d-9e2f-1a2b3c4d5e6f',
  event: 'fired',
  kind: 'hold_opened',
  identity: 'hold:42',
  title: 'Hold opened for team:payments: needs_approval on task t-1',
  detail: 'Ping <@U123> and <!channel>, see <https://x|y> & approve',
  link: '/holds?owner=team%3Apayments',
  team: 'payments',
  count: 1,
  firedAt: new Date('2026-11-30T12:00:00Z'),
  resolvedAt: null,
};
const now = new Date('2026-11-30T12:00:00Z');

describe('alert messages', () => {
  it('escapes &, < and > in Slack text so user text cannot mention or link', () => {
    expect(escapeSlackText('<@U123> <https://x|y> a&b')).toBe('&lt;@U123&gt; &lt;https://x|y&gt; a&amp;b');
    const slack = JSON.stringify(slackBody(message, 'https://holdfast.example.com'));
    expect(slack).not.toContain('<@U123>');
    expect(slack).not.toContain('<!channel>');
    expect(slack).not.toContain('<https://x|y>');
    expect(slack).toContain('&lt;@U123&gt;');
    expect(slack).toContain('&lt;https://x|y&gt; &amp; approve');
    expect(slack).toContain('"url":"https://holdfast.example.com/holds?owner=team%3Apayments"');
  });

  it('marks every Slack mrkdwn text verbatim, so no bare URL, #channel or @name in agent text becomes a link or mention', () => {
    const agentText: AlertMessage = {
      ...message,
      title: 'Hold opened for team:payments: <!here> on task <https://evil.example|t-1>',
      detail: 'Visit https://evil.example/login or <https://evil.example/a|click here>, @channel #general',
      team: 'pay<ments>',
      count: 3,
    };
    const slack = slackBody(agentText, 'https://holdfast.example.com');
    // Read as JSON, as Slack reads it: every mrkdwn object, wherever it sits.
    const mrkdwn: { text: string; verbatim?: boolean }[] = [];
    JSON.stringify(slack, (_key, value) => {
      if (value && typeof value === 'object' && value.type === 'mrkdwn') mrkdwn.push(value);
      return value;
    });
    expect(mrkdwn.length).toBe(2);
    for (const text of mrkdwn) expect(text).toMatchObject({ verbatim: true });
    expect(mrkdwn[0]?.text).toBe(
      'Visit https://evil.example/login or &lt;https://evil.example/a|click here&gt;, @channel #general',
    );
    expect(mrkdwn[1]?.text).toContain('*Team:* pay&lt;ments&gt;');
    expect(mrkdwn[1]?.text).toContain('*Holds:* 3');
    expect(slack.text).toBe(
      'Firing: Hold opened for team:payments: &lt;!here&gt; on task &lt;https://evil.example|t-1&gt;',
    );
    // No text Slack parses holds a link or mention (the header is plain_text, which Slack never parses).
    for (const text of [slack.text, ...mrkdwn.map((each) => each.text)]) expect(text).not.toMatch(/<(https?:|!|@|#)/);
    expect(slack).toMatchObject({ unfurl_links: false, unfurl_media: false });
  });

  it('gives the webhook body an absolute link under the public URL, kept under a path prefix', () => {
    expect(webhookBody(message, 'https://example.com/holdfast/')).toMatchObject({
      id: message.eventId,
      event: 'fired',
      kind: 'hold_opened',
      identity: 'hold:42',
      link: 'https://example.com/holdfast/holds?owner=team%3Apayments',
      team: 'payments',
      fired_at: '2026-11-30T12:00:00.000Z',
      resolved_at: null,
    });
    expect(absoluteLink('http://localhost:3000', '/locks')).toBe('http://localhost:3000/locks');
  });
});

describe('delivery decisions', () => {
  const answer = (statusCode: number, retryAfter: string | null = null) => ({ statusCode, retryAfter, durationMs: 5 });

  it('delivers on 2xx, retries 408, 429, 5xx and network errors with doubling delays capped at an hour', () => {
    expect(decideDelivery(answer(204), 1, 0, now)).toEqual({ kind: 'delivered' });
    for (const status of [408, 429, 500, 503]) expect(decideDelivery(answer(status), 1, 0, now).kind).toBe('retry');
    const delays = [1, 2, 3, 10, 40].map((attempt) =>
      decideDelivery({ error: 'ECONNREFUSED', durationMs: 1 }, attempt, 0, now),
    );
    expect(delays.map((decision) => (decision.kind === 'retry' ? decision.delayMs : undefined))).toEqual([
      10_000, 20_000, 40_000, 3_600_000, 3_600_000,
    ]);
  });

  it('honours Retry-After (seconds or a date, within the cap) and gives up after 72 hours', () => {
    expect(decideDelivery(answer(429, '30'), 1, 0, now)).toMatchObject({ kind: 'retry', delayMs: 30_000 });
    expect(retryAfterMs('Mon, 30 Nov 2026 12:02:00 GMT', now)).toBe(120_000);
    expect(decideDelivery(answer(503, '86400'), 1, 0, now)).toMatchObject({ delayMs: 3_600_000 });
    expect(decideDelivery(answer(503), 50, 72 * 3_600_000, now)).toMatchObject({ kind: 'failed' });
  });

  it('fails other answers at once, and never quotes the channel URL in an error', () => {
    expect(decideDelivery(answer(400), 1, 0, now)).toEqual({
      kind: 'failed',
      reason: 'the receiver answered HTTP 400',
    });
    expect(decideDelivery(answer(302), 1, 0, now).kind).toBe('failed');
    const url = 'https://hooks.slack.com/services/T000/B000/SECRET';
    const error = new TypeError('fetch failed', { cause: new Error(`connect ECONNREFUSED for ${url}`) });
    const described = describeFailure(error, url);
    expect(described).not.toContain('SECRET');
    expect(described).toContain('hooks.slack.com');
  });
});
