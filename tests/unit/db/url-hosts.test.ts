import { describe, expect, it } from 'vitest';
import { preparesStatements } from '../../../packages/engine/src/db/connection-url';
import { hostsOf, urlParameter, withFirstHost } from '../../../packages/engine/src/db/url-hosts';
import { parseEnvironment } from '../../../packages/engine/src/env';

const pair = 'postgres://app:secret@db1:5432,db2:5433/holdfast?target_session_attrs=primary&prepare=false';

describe('a multi-host connection URL (a high-availability pair)', () => {
  it('lists its hosts in order, and reads as its first host where one host is needed', () => {
    expect(hostsOf(pair)).toEqual(['db1:5432', 'db2:5433']);
    expect(withFirstHost(pair)).toBe(
      'postgres://app:secret@db1:5432/holdfast?target_session_attrs=primary&prepare=false',
    );
    expect(withFirstHost('postgres://app@db1:5432/holdfast')).toBe('postgres://app@db1:5432/holdfast');
  });

  it('gives its query parameters, which `new URL` cannot read from it', () => {
    expect(urlParameter(pair, 'target_session_attrs')).toBe('primary');
    expect(urlParameter('postgres://app@db1/holdfast', 'prepare')).toBeNull();
  });

  it('is a valid DATABASE_URL', () => {
    expect(parseEnvironment({ DATABASE_URL: pair }).DATABASE_URL).toBe(pair);
  });
});

describe('prepared statements', () => {
  it('are used unless the URL says prepare=false (behind a transaction pooler)', () => {
    expect(preparesStatements('postgres://app@db1:5432/holdfast')).toBe(true);
    expect(preparesStatements('postgres://app@pgbouncer:6432/holdfast?prepare=false')).toBe(false);
    expect(preparesStatements(pair)).toBe(false);
  });
});
