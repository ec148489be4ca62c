import { cutToLength } from '@holdfast/protocol/validation';
import type { AlertEvent, AlertKind } from '@holdfast/protocol/enums';
import { runbookPath } from './runbooks';

/** What one delivery says: an instance's firing or resolution, or a test sent from the console. */
export interface AlertMessage {
  eventId: string;
  event: AlertEvent;
  /** Null for a test. */
  kind: AlertKind | null;
  identity: string | null;
  title: string;
  detail: string;
  /** The console path that explains it (made absolute with the public URL). */
  link: string;
  team: string | null;
  /** How many subjects the notification stands for: the holds of one coalesced hold alert, else 1. */
  count: number;
  firedAt: Date;
  resolvedAt: Date | null;
}

/** The body of a webhook delivery, as documented in docs/operations/metrics-and-alerts.md (snake_case, stable across retries). */
export interface WebhookBody {
  id: string;
  event: AlertEvent;
  kind: AlertKind | null;
  identity: string | null;
  title: string;
  detail: string;
  link: string;
  /** What to do: the kind's runbook under the public URL (docs/runbooks); null for a test. */
  runbook_url: string | null;
  team: string | null;
  count: number;
  fired_at: string;
  resolved_at: string | null;
}

/** `path` under the console's public address (HOLDFAST_PUBLIC_URL), so a receiver can link straight to it. */
export function absoluteLink(publicUrl: string, path: string): string {
  // Joined, not resolved: a console served under a path (https://example.com/holdfast) keeps it.
  return `${publicUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** The runbook of the message's kind, as an absolute URL; a test has none. */
export function runbookLink(message: Pick<AlertMessage, 'kind'>, publicUrl: string): string | null {
  return message.kind ? absoluteLink(publicUrl, runbookPath(message.kind)) : null;
}

export function webhookBody(message: AlertMessage, publicUrl: string): WebhookBody {
  return {
    id: message.eventId,
    event: message.event,
    kind: message.kind,
    identity: message.identity,
    title: message.title,
    detail: message.detail,
    link: absoluteLink(publicUrl, message.link),
    runbook_url: runbookLink(message, publicUrl),
    team: message.team,
    count: message.count,
    fired_at: message.firedAt.toISOString(),
    resolved_at: message.resolvedAt?.toISOString() ?? null,
  };
}

/**
 * Text for Slack's mrkdwn with its three control characters escaped, as Slack
 * asks: a hold's detail is someone's text, and `<@U123>`, `<!channel>` or
 * `<https://evil|click>` in it must show as typed, never notify or link.
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const eventWord: Record<AlertEvent, string> = { fired: 'Firing', resolved: 'Resolved', test: 'Test' };

/**
 * A mrkdwn text object Slack takes as written: `verbatim` stops it turning bare
 * URLs, #channels and @names into links and mentions, and the escaping (which
 * the caller does) stops `<…>` doing it explicitly.
 */
const verbatimMrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text, verbatim: true });

/** A Slack incoming webhook's Block Kit message: a header, the detail, and buttons to the console and the runbook. */
export function slackBody(message: AlertMessage, publicUrl: string) {
  const link = absoluteLink(publicUrl, message.link);
  const runbook = runbookLink(message, publicUrl);
  const heading = `${eventWord[message.event]}: ${message.title}`;
  const facts = [
    message.kind ? `*Alert:* ${escapeSlackText(message.kind)}` : undefined,
    message.team ? `*Team:* ${escapeSlackText(message.team)}` : undefined,
    message.count > 1 ? `*Holds:* ${message.count}` : undefined,
    `*Since:* ${message.firedAt.toISOString()}`,
    message.resolvedAt ? `*Resolved:* ${message.resolvedAt.toISOString()}` : undefined,
  ].filter((fact) => fact !== undefined);
  return {
    // The notification's text (and what clients without blocks show); mrkdwn too, so escaped as well.
    text: cutToLength(escapeSlackText(heading), 300),
    // No previews fetched by Slack for links that slip into the text.
    unfurl_links: false,
    unfurl_media: false,
    blocks: [
      // plain_text never renders mentions or links, so the title needs no escaping there.
      { type: 'header', text: { type: 'plain_text', text: cutToLength(heading, 150), emoji: false } },
      { type: 'section', text: verbatimMrkdwn(cutToLength(escapeSlackText(message.detail), 3_000)) },
      { type: 'context', elements: [verbatimMrkdwn(facts.join('  ·  '))] },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Open in Holdfast' },
            url: link,
            action_id: 'open_in_holdfast',
          },
          // A button, not a link in the text: no mrkdwn text carries a link (see verbatimMrkdwn).
          ...(runbook
            ? [
                {
                  type: 'button',
                  text: { type: 'plain_text', text: 'Runbook' },
                  url: runbook,
                  action_id: 'open_runbook',
                },
              ]
            : []),
        ],
      },
    ],
  };
}
