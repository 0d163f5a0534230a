import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Lookup keys compare byte for byte on every dialect (MySQL's default collation would fold case
 * and accents): provider subjects and passkey credential ids that differ only in case are distinct.
 */
describe('exact lookup keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('keeps provider subjects that differ only in case apart', async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const now = t.clock.now().toISOString();
    const row = { provider: 'mock', email: null, created_at: now, updated_at: now };
    await t.services.db
      .insertInto('oauth_identities')
      .values({ ...row, subject: 'subject-AbC', user_id: alice.id })
      .execute();
    await t.services.db
      .insertInto('oauth_identities')
      .values({ ...row, subject: 'subject-abc', user_id: bob.id })
      .execute();
    const found = await t.services.db
      .selectFrom('oauth_identities')
      .select('user_id')
      .where('provider', '=', 'mock')
      .where('subject', '=', 'subject-abc')
      .execute();
    expect(found).toEqual([{ user_id: bob.id }]);
  });

  it('keeps passkey credential ids that differ only in case apart', async () => {
    const user = await t.createUser();
    const now = t.clock.now().toISOString();
    const row = {
      user_id: user.id,
      public_key: 'pk',
      counter: 0,
      transports: '[]',
      name: 'key',
      created_at: now,
      last_used_at: null,
    };
    await t.services.db
      .insertInto('passkeys')
      .values({ ...row, credential_id: 'CredId' })
      .execute();
    await t.services.db
      .insertInto('passkeys')
      .values({ ...row, credential_id: 'credid' })
      .execute();
    const found = await t.services.db
      .selectFrom('passkeys')
      .select('credential_id')
      .where('credential_id', '=', 'credid')
      .execute();
    expect(found).toEqual([{ credential_id: 'credid' }]);
  });
});
