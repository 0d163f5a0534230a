// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
/**
 * The admin and service-tokens factories' options (given over the environment over the defaults,
 * a bad value a one-line start-up error), and the admin plugin's request listener on the
 * anonymous fast path: no impersonation in the session, no promise.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { CitadelConfig } from '../../../src/config/types.ts';
import type { RequestContext } from '../../../src/auth/core/request-context.ts';
import { Session } from '../../../src/http/sessions/session.ts';
import { admin, defaultPlugins, serviceTokens } from '../../../src/index.ts';
import { resolveAdminOptions } from '../../../src/auth/admin/options.ts';
import { resolveServiceTokensOptions } from '../../../src/auth/service-tokens/options.ts';
import { IMPERSONATION_KEY, markImpersonation } from '../../../src/auth/admin/impersonation.ts';

const config = (env: Record<string, string>) =>
  ({ env, appUrl: 'https://auth.example.com' }) as unknown as CitadelConfig;

describe('admin() options', () => {
  it('defaults, ADMIN_EMAILS, and given options over it', () => {
    expect(admin().id).toBe('admin');
    expect(admin().options).toEqual({ impersonationMinutes: 30 });
    expect(
      resolveAdminOptions({}, config({ ADMIN_EMAILS: ' a@example.com,b@example.com  c@example.com' })),
    ).toEqual({
      impersonationMinutes: 30,
      adminEmails: ['a@example.com', 'b@example.com', 'c@example.com'],
    });
    expect(
      resolveAdminOptions(
        { impersonationMinutes: 5, adminEmails: ['ops@example.com'] },
        config({ ADMIN_EMAILS: 'a@example.com' }),
      ),
    ).toEqual({ impersonationMinutes: 5, adminEmails: ['ops@example.com'] });
  });

  it('a bad impersonationMinutes stops start-up with one line', () => {
    for (const minutes of [0, 1.5, -3])
      expect(() => admin({ impersonationMinutes: minutes }).resolveOptions(config({}))).toThrow(ConfigError);
  });

  it('defaultPlugins passes the options to the factory', () => {
    const plugins = defaultPlugins({ admin: { impersonationMinutes: 7 }, serviceTokens: { ttlSeconds: 60 } });
    expect(plugins.find((plugin) => plugin.id === 'admin')?.options).toEqual({ impersonationMinutes: 7 });
    expect(plugins.find((plugin) => plugin.id === 'service-tokens')?.options).toEqual({ ttlSeconds: 60 });
    expect(defaultPlugins({ admin: false, serviceTokens: false }).map((plugin) => plugin.id)).not.toContain(
      'admin',
    );
  });
});

describe('serviceTokens() options', () => {
  it('JWT_AUDIENCE, else APP_URL; the issuer APP_URL; given options win', () => {
    expect(serviceTokens().id).toBe('service-tokens');
    expect(resolveServiceTokensOptions({}, config({}))).toEqual({
      ttlSeconds: 900,
      audience: 'https://auth.example.com',
      issuer: 'https://auth.example.com',
    });
    expect(resolveServiceTokensOptions({}, config({ JWT_AUDIENCE: 'api' })).audience).toBe('api');
    expect(
      resolveServiceTokensOptions(
        { audience: 'other', issuer: 'me', ttlSeconds: 60 },
        config({ JWT_AUDIENCE: 'api' }),
      ),
    ).toEqual({ ttlSeconds: 60, audience: 'other', issuer: 'me' });
  });

  it('a bad ttlSeconds stops start-up with one line', () => {
    expect(() => serviceTokens({ ttlSeconds: 0 }).resolveOptions(config({}))).toThrow(ConfigError);
  });
});

describe('the impersonation request listener', () => {
  const context = (data: Record<string, unknown>) =>
    ({
      session: new Session(null, null, data, { expiresAt: null }),
      caller: null,
    }) as unknown as RequestContext;

  it('returns no promise when the session acts as nobody (the anonymous fast path)', () => {
    expect(markImpersonation(context({}))).toBeUndefined();
  });

  it('waits when there is an impersonation to check', async () => {
    const ctx = context({
      [IMPERSONATION_KEY]: {
        adminId: 1,
        adminUsername: 'a',
        userId: 2,
        expiresAt: '2000-01-01T00:00:00.000Z',
      },
    });
    const pending = markImpersonation(ctx);
    expect(pending).toBeInstanceOf(Promise);
    // (Ending it needs the server's services, which this bare context has not: checked end to end
    // in admin.test.ts.)
    await (pending as Promise<void>).catch(() => undefined);
  });
});
