/**
 * Issue 13, item 3: a first password is a sensitive change when the user has a factor: it needs
 * sudo, and the other sessions of the user end when it is set.
 */
import { describe, expect, it } from 'vitest';
import { socialSignIn, useSocialApp } from '../support/mock-provider.ts';
import { nextStep, totpCode } from '../support/factors.ts';
import { sudoOptions } from '../../src/auth/sudo/options.ts';

const NEW_PASSWORD = 'planted-maple-lantern-5';

describe('set-password for a social-only user with a factor', () => {
  const app = useSocialApp();

  it('needs sudo (403 sudo.required, nothing stored) once the grace period is over; with TOTP sudo it works and ends other sessions', async () => {
    const identity = {
      sub: 'first-password',
      email: 'first.password@example.com',
      email_verified: true,
      preferred_username: 'firstpassword',
    };
    const owner = app.t.client();
    await socialSignIn(app.mock, owner, identity);
    const start = await owner.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    expect(
      (await owner.post('/two-factor/enroll/confirm', { factor: 'totp', proof: totpCode(app.t, secret) }))
        .status,
    ).toBe(200);
    // The sign-in grace period ends: whoever holds this session now has no sudo.
    app.t.clock.advance(sudoOptions(app.t.services).ttlSeconds + 1);
    nextStep(app.t);
    // A second session of the same user (another device).
    const other = app.t.client();
    await socialSignIn(app.mock, other, identity);
    expect((await other.post('/action/handle', { code: totpCode(app.t, secret) })).body.action).toBe(
      'action.success',
    );

    const refused = await owner.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('sudo.required');
    const user = (await app.t.services.users.findByEmail(identity.email))!;
    expect(user.password_hash).toBeNull();

    nextStep(app.t);
    expect(
      (await owner.post('/sudo/verify', { factor: 'totp', proof: totpCode(app.t, secret) })).status,
    ).toBe(200);
    const set = await owner.post('/set-password', { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD });
    expect(set.status, set.text).toBe(200);
    expect((await owner.get('/me')).status).toBe(200);
    expect((await other.get('/me')).status).toBe(401);
  });
});
