import { describe, expect, it } from 'vitest';
import { shouldSeedDemoPeople } from '../../../lib/auth/demo-people';
import {
  assertConsoleIsGuarded,
  corePolicyFrom,
  EnvironmentError,
  isInsecureDemo,
  isLoopbackAddress,
  parseEnvironment,
} from '../../../packages/engine/src/env';

describe('parseEnvironment', () => {
  it('applies defaults when nothing is set', () => {
    expect(parseEnvironment({})).toEqual({
      DATABASE_URL: undefined,
      DATABASE_MIGRATION_URL: undefined,
      HOLDFAST_PUBLIC_URL: undefined,
      HOLDFAST_ALERT_ALLOWED_HOSTS: '',
      HOLDFAST_TRUST_FORWARDED_HEADERS: '0',
      HOLDFAST_INSECURE_DEMO: '0',
      HOST: '127.0.0.1',
      PORT: 3000,
      HOLDFAST_DATA_DIR: '.data/postgres',
      HOLDFAST_DEMO_DATA: 'auto',
      DATABASE_READ_URL: undefined,
      HOLDFAST_READ_MAX_LAG_SECONDS: 30,
      HOLDFAST_BULK_REDRIVE_STALLED_SECONDS: 30,
      HOLDFAST_DRAIN_SECONDS: 5,
      HOLDFAST_DEMO_FLEET_LEASE_SECONDS: 30,
      HOLDFAST_SWEEP_INTERVAL_SECONDS: 60,
      HOLDFAST_FROZEN_AFTER_DAYS: 3,
      HOLDFAST_DEMO: 'auto',
      HOLDFAST_ATTEMPT_RETENTION_DAYS: 30,
      HOLDFAST_ROLLUP_RETENTION_DAYS: 400,
      HOLDFAST_TRACES_OPERATIONS: ['chat', 'text_completion', 'generate_content', 'embeddings', 'execute_tool'],
      HOLDFAST_REDRIVE_MAX: 3,
      HOLDFAST_REDRIVE_COOLDOWN_MINUTES: 10,
      HOLDFAST_REDRIVE_MAX_AGE_DAYS: 7,
      HOLDFAST_AGENT_RATE_PER_SECOND: 200,
      HOLDFAST_AGENT_RATE_BURST: 2_000,
      HOLDFAST_BENCH_EMPTY_ROUTE: 'off',
      HOLDFAST_METRICS_MAX_STEPS_PER_AGENT: 100,
      HOLDFAST_UNCERTAIN_ESCALATE_MINUTES: 15,
      HOLDFAST_STALE_LOCK_ESCALATE_MINUTES: 30,
      HOLDFAST_DEFAULT_OWNER: 'team:platform',
      AUTH_MODE: undefined,
      SESSION_SECRET: undefined,
      AUTH_PROXY_SECRET: undefined,
      AUTH_PROXY_SECRET_HEADER: 'x-holdfast-proxy-secret',
      AUTH_PROXY_EMAIL_HEADER: 'x-forwarded-email',
      AUTH_PROXY_GROUPS_HEADER: 'x-forwarded-groups',
      AUTH_PROXY_ROLE_MAP: '',
      AUTH_PROXY_SIGN_OUT_URL: undefined,
    });
  });

  it('reads the counted span operations as a list, and refuses a value that is not an operation name', () => {
    expect(
      parseEnvironment({ HOLDFAST_TRACES_OPERATIONS: ' chat , execute_tool ' }).HOLDFAST_TRACES_OPERATIONS,
    ).toEqual(['chat', 'execute_tool']);
    expect(() => parseEnvironment({ HOLDFAST_TRACES_OPERATIONS: 'chat,Chat Completion' })).toThrow(
      /HOLDFAST_TRACES_OPERATIONS/,
    );
  });

  it('turns the redrive brakes into the library policy, and refuses an owner that names nobody', () => {
    expect(
      corePolicyFrom(
        parseEnvironment({
          HOLDFAST_REDRIVE_MAX: '5',
          HOLDFAST_REDRIVE_COOLDOWN_MINUTES: '2',
          HOLDFAST_REDRIVE_MAX_AGE_DAYS: '1',
        }),
      ),
    ).toEqual({
      redriveBrakes: { maxRedrives: 5, cooldownMs: 120_000, maxTaskAgeMs: 86_400_000 },
      attemptRetentionMs: 30 * 86_400_000,
      defaultOwner: 'team:platform',
    });
    expect(() => parseEnvironment({ HOLDFAST_DEFAULT_OWNER: 'platform' })).toThrow(/HOLDFAST_DEFAULT_OWNER/);
  });

  it('accepts postgres:// and postgresql:// URLs', () => {
    expect(parseEnvironment({ DATABASE_URL: 'postgres://u@db.internal:5432/holdfast' }).DATABASE_URL).toBe(
      'postgres://u@db.internal:5432/holdfast',
    );
    expect(parseEnvironment({ DATABASE_URL: 'postgresql://u:p@127.0.0.1/x' }).DATABASE_URL).toBe(
      'postgresql://u:p@127.0.0.1/x',
    );
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(parseEnvironment({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it.each([['not a url'], ['mysql://root@localhost/db'], ['postgres://']])(
    'rejects DATABASE_URL=%s with one line naming the variable',
    (value) => {
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
    },
  );

  it('refuses to serve an open console on a named database', () => {
    const env = parseEnvironment({ DATABASE_URL: 'postgres://u@db/holdfast' });
    expect(() => assertConsoleIsGuarded(env)).toThrow(/^Invalid environment: AUTH_MODE: must be set/);
    expect(() => assertConsoleIsGuarded(parseEnvironment({}))).not.toThrow();
  });

  it('refuses demo sign-in on a named database or a reachable address, unless told it is a throwaway trial', () => {
    const guard = (vars: Record<string, string>) => () => assertConsoleIsGuarded(parseEnvironment(vars));
    expect(guard({ DATABASE_URL: 'postgres://u@db/holdfast', AUTH_MODE: 'demo' })).toThrow(
      /^Invalid environment: AUTH_MODE: demo sign-in lets anyone in as the admin, so it runs only on the embedded database/,
    );
    // The embedded database serves demo sign-in by default: on 0.0.0.0 that is the whole network's admin account.
    expect(guard({ HOST: '0.0.0.0' })).toThrow(/^Invalid environment: HOST: demo sign-in .* not 0\.0\.0\.0/);
    expect(guard({ HOST: '192.168.1.20', AUTH_MODE: 'demo' })).toThrow(/HOST/);
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2'])
      expect(guard({ HOST: host })).not.toThrow();
    expect(
      guard({
        DATABASE_URL: 'postgres://u@db/holdfast',
        AUTH_MODE: 'demo',
        HOST: '0.0.0.0',
        HOLDFAST_INSECURE_DEMO: '1',
      }),
    ).not.toThrow();
    expect(
      guard({
        DATABASE_URL: 'postgres://u@db/holdfast',
        AUTH_MODE: 'proxy',
        AUTH_PROXY_SECRET: 'proxy-shared-secret-1',
        HOST: '0.0.0.0',
      }),
    ).not.toThrow();
    expect(guard({ AUTH_MODE: 'proxy', AUTH_PROXY_SECRET: 'proxy-shared-secret-1', HOST: '0.0.0.0' })).not.toThrow();
  });

  it('knows loopback addresses, and when the insecure demo banner shows', () => {
    expect(['localhost', '127.0.0.1', '::1', '[::1]'].every(isLoopbackAddress)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'holdfast.example.com', '::', '127.0.0.1.nip.io'].some(isLoopbackAddress)).toBe(
      false,
    );
    expect(isInsecureDemo(parseEnvironment({ HOLDFAST_INSECURE_DEMO: '1' }))).toBe(true);
    expect(isInsecureDemo(parseEnvironment({}))).toBe(false);
    expect(
      isInsecureDemo(
        parseEnvironment({
          HOLDFAST_INSECURE_DEMO: '1',
          AUTH_MODE: 'proxy',
          AUTH_PROXY_SECRET: 'proxy-shared-secret-1',
        }),
      ),
    ).toBe(false);
  });

  it('seeds the demo people into the embedded database only', () => {
    expect(shouldSeedDemoPeople({ authMode: 'demo', embeddedDatabase: true })).toBe(true);
    expect(shouldSeedDemoPeople({ authMode: 'demo', embeddedDatabase: false })).toBe(false);
    expect(shouldSeedDemoPeople({ authMode: 'proxy', embeddedDatabase: true })).toBe(false);
  });

  it('requires the proxy secret in proxy mode', () => {
    expect(() => parseEnvironment({ AUTH_MODE: 'proxy' })).toThrow(/AUTH_PROXY_SECRET: is required/);
    expect(() => parseEnvironment({ AUTH_MODE: 'proxy', AUTH_PROXY_SECRET: 'short' })).toThrow(/at least 16/);
  });

  it('keeps rollups at least as long as raw attempts', () => {
    expect(() =>
      parseEnvironment({ HOLDFAST_ATTEMPT_RETENTION_DAYS: '90', HOLDFAST_ROLLUP_RETENTION_DAYS: '60' }),
    ).toThrow(/HOLDFAST_ROLLUP_RETENTION_DAYS: must be at least HOLDFAST_ATTEMPT_RETENTION_DAYS/);
    expect(parseEnvironment({ HOLDFAST_ATTEMPT_RETENTION_DAYS: '7' }).HOLDFAST_ATTEMPT_RETENTION_DAYS).toBe(7);
  });

  it('names every bad variable at once', () => {
    expect(() => parseEnvironment({ PORT: '70000', HOLDFAST_DEMO_DATA: 'maybe' })).toThrow(
      /PORT: .*; HOLDFAST_DEMO_DATA: /,
    );
  });
});
