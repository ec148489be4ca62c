import { timingSafeEqual } from 'node:crypto';
import type { Role } from '@holdfast/engine/db/schema';
import type { Environment } from '@holdfast/engine/env';
import { parsePersonEmail } from '@holdfast/engine/core';

export interface ProxySettings {
  secret: string;
  secretHeader: string;
  emailHeader: string;
  groupsHeader: string;
  /** `group=role` pairs, comma-separated. */
  roleMap: string;
}

/** The proxy settings from the validated environment. */
export function proxySettingsFrom(env: Environment): ProxySettings {
  return {
    secret: env.AUTH_PROXY_SECRET ?? '',
    secretHeader: env.AUTH_PROXY_SECRET_HEADER,
    emailHeader: env.AUTH_PROXY_EMAIL_HEADER,
    groupsHeader: env.AUTH_PROXY_GROUPS_HEADER,
    roleMap: env.AUTH_PROXY_ROLE_MAP,
  };
}

/** What the console answers when the proxy's headers do not identify a person. */
export function proxyRefusal(identity: ProxyIdentity, settings: ProxySettings): { status: 401 | 403; text: string } {
  return !identity.ok && identity.reason === 'email'
    ? {
        status: 403,
        text: `The SSO proxy's ${settings.emailHeader} header does not hold an e-mail address Holdfast accepts (name@domain.tld).`,
      }
    : { status: 401, text: 'Holdfast is reached through the SSO proxy only.' };
}

export type ProxyIdentity =
  /** mappedRole: the highest role the map gives any of their groups; undefined when it names none of them. */
  { ok: true; email: string; mappedRole: Role | undefined } | { ok: false; reason: 'secret' | 'email' };

const rank: Record<Role, number> = { viewer: 0, responder: 1, admin: 2 };

/** Parses `sre=admin, oncall=responder` into a map; unknown roles are ignored. */
export function parseRoleMap(roleMap: string): Map<string, Role> {
  const map = new Map<string, Role>();
  for (const pair of roleMap.split(',')) {
    const [group, role] = pair.split('=').map((part) => part.trim());
    if (group && (role === 'viewer' || role === 'responder' || role === 'admin')) map.set(group, role);
  }
  return map;
}

/**
 * Who an SSO proxy says is asking. The headers are trusted only when the
 * shared secret header matches (compared in constant time); otherwise anyone
 * who can reach Holdfast directly could claim to be anyone. The highest role
 * any of the person's groups maps to wins; with no mapped group the role is
 * Holdfast's to keep (see ensureProxyPerson), and a person first seen is a viewer.
 */
export function resolveProxyIdentity(
  headers: { get(name: string): string | null },
  settings: ProxySettings,
): ProxyIdentity {
  const presented = Buffer.from(headers.get(settings.secretHeader) ?? '');
  const expected = Buffer.from(settings.secret);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
    return { ok: false, reason: 'secret' };

  // The same rule people management applies: an address it would refuse must not get this far.
  const email = parsePersonEmail(headers.get(settings.emailHeader) ?? '');
  if (!email) return { ok: false, reason: 'email' };

  const roles = parseRoleMap(settings.roleMap);
  let mappedRole: Role | undefined;
  for (const group of (headers.get(settings.groupsHeader) ?? '').split(/[,\s]+/)) {
    const mapped = roles.get(group);
    if (mapped && (mappedRole === undefined || rank[mapped] > rank[mappedRole])) mappedRole = mapped;
  }
  return { ok: true, email, mappedRole };
}
