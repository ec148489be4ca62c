import { describe, expect, it } from 'vitest';
import { EnvironmentError, parseEnvironment } from '../../lib/env';

describe('parseEnvironment', () => {
  it('applies defaults when nothing is set', () => {
    expect(parseEnvironment({})).toEqual({
      DATABASE_URL: undefined,
      HOST: '127.0.0.1',
      PORT: 3000,
      HOLDFAST_DATA_DIR: '.data/postgres',
      HOLDFAST_DEMO_DATA: 'auto',
      HOLDFAST_SWEEP_INTERVAL_SECONDS: 60,
      HOLDFAST_FROZEN_AFTER_DAYS: 3,
    });
  });

  it('accepts postgres:// and postgresql:// URLs', () => {
    expect(parseEnvironment({ DATABASE_URL: 'postgres://u@db.internal:5432/holdfast' }).DATABASE_URL).toBe(
      'postgres://u@db.internal:5432/holdfast',
    );
    expect(parseEnvironment({ DATABASE_URL: 'postgresql://u:p@127.0.0.1/x' }).DATABASE_URL).toBe('postgresql://u:p@127.0.0.1/x');
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(parseEnvironment({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    ['not a url'],
    ['mysql://root@localhost/db'],
    ['postgres://'],
  ])('rejects DATABASE_URL=%s with one line naming the variable', (value) => {
    let thrown: unknown;
    try {
      parseEnvironment({ DATABASE_URL: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EnvironmentError);
    const message = (thrown as Error).message;
    expect(message).toMatch(/^Invalid environment: DATABASE_URL: must be a URL/);
    expect(message).not.toContain('\n');
  });

  it('names every bad variable at once', () => {
    expect(() => parseEnvironment({ PORT: '70000', HOLDFAST_DEMO_DATA: 'maybe' })).toThrow(
      /PORT: .*; HOLDFAST_DEMO_DATA: /,
    );
  });
});
