import { describe, expect, it } from 'vitest';
import { unixSocketOf } from '../../../packages/engine/src/db/connection-url';

describe('a connection URL naming a Unix socket the libpq way', () => {
  it('gives the socket path under the directory for the port, and the URL without the host parameter', () => {
    expect(
      unixSocketOf('postgresql://app@localhost:5433/holdfast?host=%2Fvar%2Frun%2Fpostgresql&sslmode=disable'),
    ).toEqual({
      url: 'postgresql://app@localhost:5433/holdfast?sslmode=disable',
      path: '/var/run/postgresql/.s.PGSQL.5433',
    });
  });

  it('takes port 5432 when the URL names none, and a trailing slash of the directory away', () => {
    expect(unixSocketOf('postgres://app@localhost/holdfast?host=/tmp/')?.path).toBe('/tmp/.s.PGSQL.5432');
  });

  it('is no socket for a TCP URL, a host parameter naming a machine, or text that is not a URL', () => {
    expect(unixSocketOf('postgres://app@db.internal:5432/holdfast')).toBeUndefined();
    expect(unixSocketOf('postgres://app@localhost/holdfast?host=db.internal')).toBeUndefined();
    expect(unixSocketOf('not a url')).toBeUndefined();
  });
});
