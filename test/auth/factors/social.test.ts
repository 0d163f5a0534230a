import { describe, expect, it } from 'vitest';
import { socialSignIn, useSocialApp } from '../../support/mock-provider.ts';
import { nextStep, totpCode } from '../../support/factors.ts';

describe('two-factor and sudo with social sign-in', () => {
  const app = useSocialApp();

  it('a social-only user is elevated at sign-in, can enroll TOTP, and is then asked for it on the next social sign-in', async () => {
    const identity = {
      sub: 'social-2fa',
      email: 'social.2fa@example.com',
      email_verified: true,
      preferred_username: 'social2fa',
    };
    const client = app.t.client();
    const first = await socialSignIn(app.mock, client, identity);
    expect(first.body.action, first.text).toBe('social.login');
    const sudo = await client.get('/sudo');
    expect(sudo.body.data).toMatchObject({ active: true, factors: [] });

    // No password and no factor: the grace period from sign-in is enough to enroll.
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    expect(start.status, start.text).toBe(200);
    const secret = start.body.data.secret as string;
    const confirm = await client.post('/two-factor/enroll/confirm', {
      factor: 'totp',
      proof: totpCode(app.t, secret),
    });
    expect(confirm.status).toBe(200);
    expect((await client.get('/sudo')).body.data.factors).toEqual(['totp', 'recovery_code']);

    await client.post('/logout');
    nextStep(app.t);
    const again = await socialSignIn(app.mock, client, identity);
    expect(again.body.action).toBe('login.action_required');
    expect(again.body.redirect_to).toBe('/action/show');
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/action/show')).body.data.action).toBe('two_factor');
    const done = await client.post('/action/handle', { code: totpCode(app.t, secret) });
    expect(done.body.action).toBe('action.success');
    // Now the user has a factor: signing in no longer grants sudo.
    expect((await client.get('/sudo')).body.data.active).toBe(false);
    expect((await client.post('/two-factor/enroll/start', { factor: 'passkey' })).status).toBe(403);
  });
});
