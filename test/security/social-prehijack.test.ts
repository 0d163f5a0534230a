/**
 * Issue 13, item 2: social sign-in links a provider-verified email only to an account that proved
 * the address (email_verified_at: activation, reset, magic link, emailed code).
 */
import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../support/app.ts';
import { linkIn } from '../support/mail.ts';
import { socialSignIn, useSocialApp } from '../support/mock-provider.ts';
import { isPlaceholderEmail } from '../../src/auth/social/identities.ts';

describe('pre-account hijack through social sign-in', () => {
  const app = useSocialApp();

  it("an attacker's account registered with the victim's address never receives the victim's identity", async () => {
    const attacker = app.t.client();
    const registered = await attacker.post('/register', {
      username: 'squatter',
      email: 'victim.pre@example.com',
      password: TEST_PASSWORD,
      password_confirm: TEST_PASSWORD,
    });
    expect(registered.status, registered.text).toBe(201);
    const squatter = (await app.t.services.users.findByEmail('victim.pre@example.com'))!;
    expect(squatter.email_verified_at).toBeNull();

    const victim = await socialSignIn(app.mock, app.t.client(), {
      sub: 'victim-subject',
      email: 'victim.pre@example.com',
      email_verified: true,
    });
    expect(victim.status).toBe(200);
    expect(victim.body.user.id).not.toBe(squatter.id);
    expect(isPlaceholderEmail(victim.body.user.email)).toBe(true);
    // The unproved account is untouched: same address, no identity.
    const after = (await app.t.services.users.findById(squatter.id))!;
    expect(after.email).toBe('victim.pre@example.com');
    const identities = await app.t.services.db
      .selectFrom('oauth_identities')
      .select('user_id')
      .where('subject', '=', 'victim-subject')
      .execute();
    expect(identities.map((row) => row.user_id)).toEqual([victim.body.user.id]);
    // The attacker's session does not see the victim's identity either.
    expect((await attacker.get('/me')).body.user.id).toBe(squatter.id);
  });

  it('an account that proved its address (by a reset link) is linked', async () => {
    const owner = await app.t.createUser({ email: 'owner.reset@example.com' });
    expect(owner.email_verified_at).toBeNull();
    await app.t.client().post('/forgot-password', { email: owner.email });
    const mail = await app.t.mail.waitFor(owner.email);
    const token = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;
    const password = 'another-maple-lantern-3';
    expect(
      (await app.t.client().post('/reset-password', { token, password, password_confirm: password })).status,
    ).toBe(200);
    expect((await app.t.services.users.findById(owner.id))!.email_verified_at).not.toBeNull();
    const linked = await socialSignIn(app.mock, app.t.client(), {
      sub: 'owner-subject',
      email: owner.email,
      email_verified: true,
    });
    expect(linked.body.user.id).toBe(owner.id);
  });

  it('a magic link proves the address too; a social account with a verified email is proved from the start', async () => {
    const owner = await app.t.createUser({ email: 'owner.magic@example.com' });
    await app.t.client().post('/magic-link', { email: owner.email });
    const mail = await app.t.mail.waitFor(owner.email);
    const link = linkIn(mail, 'http://localhost:3000/magic-link/verify');
    const used = await app.t.client().get(link.replace('http://localhost:3000', ''));
    expect(used.status).toBeLessThan(400);
    expect((await app.t.services.users.findById(owner.id))!.email_verified_at).not.toBeNull();

    const fresh = await socialSignIn(app.mock, app.t.client(), {
      sub: 'fresh-subject',
      email: 'fresh.social@example.com',
      email_verified: true,
    });
    expect(fresh.body.user.email).toBe('fresh.social@example.com');
    const stored = (await app.t.services.users.findById(fresh.body.user.id))!;
    expect(stored.email_verified_at).not.toBeNull();
  });
});
