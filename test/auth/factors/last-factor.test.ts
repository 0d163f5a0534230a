import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { enrollTotp, sudoWithPassword } from '../../support/factors.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';
import { eventTypes } from '../../support/security-events.ts';

/**
 * Contract section 14: with REQUIRE_TWO_FACTOR=1, removing the last factor (the TOTP or the last
 * passkey) is refused with 409 `two_factor.required`, on every removal path and under races.
 * Factors are set up on a server without the setting (`plain`); the same browser session then
 * talks to a server with it (`required`), both on one database.
 */
describe('REQUIRE_TWO_FACTOR=1: the last factor stays', () => {
  let plain: TestApp;
  let required: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
    required = await startTestApp({
      sharedDatabase: plain.database,
      sharedMail: plain.mail,
      clock: plain.clock,
      env: { REQUIRE_TWO_FACTOR: '1' },
    });
  });
  afterAll(async () => {
    await required?.close();
    await plain?.close();
  });

  async function addPasskey(client: TestClient): Promise<SoftAuthenticator> {
    const key = new SoftAuthenticator('http://localhost:3000');
    const start = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(start.status, start.text).toBe(200);
    const confirm = await client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: key.register(start.body.data.options),
    });
    expect(confirm.status, confirm.text).toBe(200);
    return key;
  }

  /** A signed-in, elevated client of `required` whose user has the given factors. */
  async function userWith(factors: { totp?: boolean; passkeys?: number }) {
    const user = await plain.createUser();
    const client = await plain.signIn(user);
    // enrollTotp elevates the session first; without it, elevate with the password.
    if (factors.totp) await enrollTotp(plain, client);
    else await sudoWithPassword(client);
    const keys: SoftAuthenticator[] = [];
    for (let i = 0; i < (factors.passkeys ?? 0); i += 1) keys.push(await addPasskey(client));
    client.useApp(required.app);
    return { user, client, keys };
  }

  async function factorRows(userId: number) {
    const db = plain.services.db;
    const totp = await db.selectFrom('totp_factors').select('id').where('user_id', '=', userId).execute();
    const passkeys = await db.selectFrom('passkeys').select('id').where('user_id', '=', userId).execute();
    const codes = await db.selectFrom('recovery_codes').select('id').where('user_id', '=', userId).execute();
    return { totp: totp.length, passkeys: passkeys.length, codes: codes.length };
  }

  it('the only TOTP: 409 two_factor.required for JSON and SPA clients; nothing removed, recorded or mailed', async () => {
    const { user, client } = await userWith({ totp: true });
    for (const kind of ['json', 'spa'] as const) {
      const refused = await client.request('POST', '/two-factor/unenroll', kind, { factor: 'totp' });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        action: 'two_factor.required',
        status: 'error',
        statusCode: 409,
        data: { factor: 'totp' },
      });
      expect(refused.body.message).toMatch(/required/i);
    }
    expect(await factorRows(user.id)).toEqual({ totp: 1, passkeys: 0, codes: 10 });
    expect(await eventTypes(required, user.id)).not.toContain('factor_removed');
    await required.mail.settled();
    expect(required.mail.to(user.email).map((m) => m.subject)).not.toContain(
      'A two-factor method was removed',
    );
    // The same removal on a server without the setting goes through (the refusal is the setting's).
    const allowed = await client.useApp(plain.app).post('/two-factor/unenroll', { factor: 'totp' });
    expect(allowed.status).toBe(200);
    expect(await factorRows(user.id)).toEqual({ totp: 0, passkeys: 0, codes: 0 });
  });

  it('the only passkey: refused by credential id and as "every passkey"; one of two may go', async () => {
    const { user, client, keys } = await userWith({ passkeys: 2 });
    const first = await client.post('/two-factor/unenroll', {
      factor: 'passkey',
      credential_id: keys[0]!.id,
    });
    expect(first.status, first.text).toBe(200);
    const last = await client.post('/two-factor/unenroll', { factor: 'passkey', credential_id: keys[1]!.id });
    expect(last.status).toBe(409);
    expect(last.body).toMatchObject({ action: 'two_factor.required', data: { factor: 'passkey' } });
    const all = await client.post('/two-factor/unenroll', { factor: 'passkey' });
    expect(all.status).toBe(409);
    expect(all.body.action).toBe('two_factor.required');
    expect(await factorRows(user.id)).toEqual({ totp: 0, passkeys: 1, codes: 10 });
    // Nothing to remove is still 404, not 409.
    expect((await client.post('/two-factor/unenroll', { factor: 'totp' })).status).toBe(404);
  });

  it('TOTP and a passkey: either may go, not both; removing every passkey counts the TOTP', async () => {
    const { user, client } = await userWith({ totp: true, passkeys: 2 });
    const passkeys = await client.post('/two-factor/unenroll', { factor: 'passkey' });
    expect(passkeys.status, passkeys.text).toBe(200);
    const totp = await client.post('/two-factor/unenroll', { factor: 'totp' });
    expect(totp.status).toBe(409);
    expect(await factorRows(user.id)).toEqual({ totp: 1, passkeys: 0, codes: 10 });
  });

  it('the settings page form: the page again with the reason, status 409, the factor kept', async () => {
    const { user, client } = await userWith({ totp: true });
    const page = await client.post('/two-factor/unenroll', { factor: 'totp' }, 'form');
    expect(page.status).toBe(409);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Two-factor authentication is required for your account');
    expect(page.text).toContain('Remove authenticator app');
    expect(await factorRows(user.id)).toEqual({ totp: 1, passkeys: 0, codes: 10 });
  });

  it('two parallel removals of the last two factors: exactly one succeeds, one factor is left', async () => {
    for (let round = 0; round < 8; round += 1) {
      const { user, client, keys } = await userWith({
        totp: round % 2 === 0,
        passkeys: round % 2 === 0 ? 1 : 2,
      });
      const bodies =
        round % 2 === 0
          ? [{ factor: 'totp' }, { factor: 'passkey', credential_id: keys[0]!.id }]
          : [
              { factor: 'passkey', credential_id: keys[0]!.id },
              { factor: 'passkey', credential_id: keys[1]!.id },
            ];
      const answers = await Promise.all(bodies.map((body) => client.post('/two-factor/unenroll', body)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([200, 409]);
      const rows = await factorRows(user.id);
      expect(rows.totp + rows.passkeys).toBe(1);
      expect(rows.codes).toBe(10);
      expect((await eventTypes(required, user.id)).filter((type) => type === 'factor_removed')).toHaveLength(
        1,
      );
    }
  });
});
