import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { enrollTotp, startLogin, sudoWithPassword } from '../../support/factors.ts';

describe('recovery codes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('each code signs in once, then fails; the count drops', async () => {
    const user = await t.createUser();
    const owner = await t.signIn(user);
    const { recoveryCodes } = await enrollTotp(t, owner);
    const codes = recoveryCodes!;

    const first = await startLogin(t, user);
    const used = await first.post('/action/handle', { factor: 'recovery_code', proof: codes[0] });
    expect(used.status, used.text).toBe(200);
    expect(used.body.action).toBe('action.success');
    expect((await first.get('/two-factor')).body.data.recovery_codes_remaining).toBe(9);

    const again = await startLogin(t, user);
    expect((await again.post('/action/handle', { factor: 'recovery_code', proof: codes[0] })).status).toBe(
      404,
    );
    // Typed by hand: upper case, no dash, spaces around.
    const typed = ` ${codes[1].toUpperCase().replace('-', '')} `;
    expect((await again.post('/action/handle', { factor: 'recovery_code', proof: typed })).status).toBe(200);
    expect((await again.get('/two-factor')).body.data.recovery_codes_remaining).toBe(8);
  });

  it('a recovery code is a sudo proof, once', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const { recoveryCodes } = await enrollTotp(t, client);
    await client.post('/sudo/exit');
    const factors = (await client.get('/sudo')).body.data.factors;
    expect(factors).toEqual(['password', 'totp', 'recovery_code']);
    const ok = await client.post('/sudo/verify', { factor: 'recovery_code', proof: recoveryCodes![5] });
    expect(ok.status).toBe(200);
    await client.post('/sudo/exit');
    const reused = await client.post('/sudo/verify', { factor: 'recovery_code', proof: recoveryCodes![5] });
    expect(reused.status).toBe(422);
    expect(reused.body.errors.proof).toBeTruthy();
    expect((await client.get('/two-factor')).body.data.recovery_codes_remaining).toBe(9);
  });

  it('regenerating (sudo) replaces the whole set', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const { recoveryCodes } = await enrollTotp(t, client);
    await client.post('/sudo/exit');
    const refused = await client.post('/two-factor/recovery-codes');
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('sudo.required');

    await sudoWithPassword(client);
    const fresh = await client.post('/two-factor/recovery-codes');
    expect(fresh.status).toBe(200);
    expect(fresh.body.action).toBe('two_factor.recovery_codes');
    const codes = fresh.body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(codes.some((c) => recoveryCodes!.includes(c))).toBe(false);
    expect(fresh.body.data.recovery_codes_remaining).toBe(10);

    const old = await startLogin(t, user);
    expect(
      (await old.post('/action/handle', { factor: 'recovery_code', proof: recoveryCodes![0] })).status,
    ).toBe(404);
    expect((await old.post('/action/handle', { factor: 'recovery_code', proof: codes[0] })).status).toBe(200);
  });

  it('no recovery codes without an enrolled factor', async () => {
    const client = await t.signIn(await t.createUser());
    await sudoWithPassword(client);
    expect((await client.post('/two-factor/recovery-codes')).status).toBe(404);
    expect(
      (await client.post('/sudo/verify', { factor: 'recovery_code', proof: 'abcde-fghjk' })).status,
    ).toBe(422);
  });
});
