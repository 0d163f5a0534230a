/**
 * Issue 13, item 3: a first password is a sensitive change when the user has a factor: it needs
 * sudo, and the other sessions of the user end when it is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { MockProvider, socialSignIn } from '../social/mock-provider.ts';
import { nextStep, totpCode } from '../factors/helpers.ts';

const NEW_PASSWORD = 'planted-maple-lantern-5';

describe('set-password for a social-only user with a factor', () => {
  let mock: MockProvider;
  let t: TestApp;
  beforeAll(async () => {
    mock = await new MockProvider().start();
    t = await startTestApp({ oauthProviders: [mock.providerConfig()] });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.stop();
  });

  it('needs sudo (403 sudo.required, nothing stored) once the grace period is over; with TOTP sudo it works and ends other sessions', async () => {
    const identity = {
      sub: 'first-password',
      email: 'first.password@example.com',
      email_verified: true,
      preferred_username: 'firstpassword',
    };
    const owner = t.client();
    await socialSignIn(mock, owner, identity);
    const start = await owner.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    expect(
      (await owner.post('/two-factor/enroll/confirm', { factor: 'totp', proof: totpCode(t, secret) })).status,
    ).toBe(200);
    // The sign-in grace period ends: whoever holds this session now has no sudo.
    t.clock.advance(t.services.config.limits.sudoTtl + 1);
    nextStep(t);
    // A second session of the same user (another device).
    const other = t.client();
    await socialSignIn(mock, other, identity);
    expect((await other.post('/action/handle', { code: totpCode(t, secret) })).body.action).toBe(
      'action.success',
    );

    const refused = await owner.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('sudo.required');
    const user = (await t.services.users.findByEmail(identity.email))!;
    expect(user.password_hash).toBeNull();

    nextStep(t);
    expect((await owner.post('/sudo/verify', { factor: 'totp', proof: totpCode(t, secret) })).status).toBe(
      200,
    );
    const set = await owner.post('/set-password', { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD });
    expect(set.status, set.text).toBe(200);
    expect((await owner.get('/me')).status).toBe(200);
    expect((await other.get('/me')).status).toBe(401);
  });
});
