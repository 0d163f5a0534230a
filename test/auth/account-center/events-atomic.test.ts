import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { testDialect } from '../../support/databases.ts';
import { enrollTotp, nextStep, startLogin, sudoWithPassword, totpCode } from '../../support/factors.ts';
import { SECOND_FACTOR_FAILURES_PER_ACCOUNT } from '../../../src/auth/core/second-factor-budget.ts';
import { eventTypes, storedEvents } from '../../support/security-events.ts';

/**
 * Issue 11: an event commits with its change, or neither does. A database trigger makes one write
 * of the request fail after the other has run (the session write after the event on the session
 * paths; the event after the factor's row on the factor paths): both must be gone afterwards.
 */
type Operation = 'insert' | 'update' | 'delete';

async function failWrites(t: TestApp, table: string, operation: Operation): Promise<() => Promise<void>> {
  const db = t.services.db;
  const name = `forced_failure_${table}_${operation}`;
  const dialect = testDialect();
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `create trigger ${name} before ${operation} on ${table} begin select raise(abort, 'forced failure'); end`,
      )
      .execute(db);
    return async () => void (await sql.raw(`drop trigger ${name}`).execute(db));
  }
  if (dialect === 'postgres') {
    await sql
      .raw(
        `create or replace function forced_failure() returns trigger language plpgsql as $$ begin raise exception 'forced failure'; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${name} before ${operation} on ${table} for each row execute function forced_failure()`,
      )
      .execute(db);
    return async () => void (await sql.raw(`drop trigger ${name} on ${table}`).execute(db));
  }
  await sql
    .raw(
      `create trigger ${name} before ${operation} on ${table} for each row signal sqlstate '45000' set message_text = 'forced failure'`,
    )
    .execute(db);
  return async () => void (await sql.raw(`drop trigger ${name}`).execute(db));
}

/** Run `request` while `table` refuses `operation`; the trigger is gone afterwards whatever happens. */
async function whileFailing<T>(t: TestApp, table: string, operation: Operation, request: () => Promise<T>) {
  const restore = await failWrites(t, table, operation);
  try {
    return await request();
  } finally {
    await restore();
  }
}

async function recoveryCodeHashes(t: TestApp, userId: number): Promise<string[]> {
  const rows = await t.services.db
    .selectFrom('recovery_codes')
    .select('code_hash')
    .where('user_id', '=', userId)
    .orderBy('code_hash')
    .execute();
  return rows.map((row) => row.code_hash);
}

describe('an event commits with its change, or neither does', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('sign-in: the session write fails after the sign_in event, and neither is kept', async () => {
    const user = await t.createUser();
    const client = t.client();
    const failed = await whileFailing(t, 'sessions', 'insert', () =>
      client.post('/login', { email: user.email, password: TEST_PASSWORD }),
    );
    expect(failed.status).toBe(500);
    expect(failed.text).not.toMatch(/forced failure/);
    expect(await eventTypes(t, user.id)).not.toContain('sign_in');
    expect((await client.get('/me')).status).toBe(401);
    // The same sign-in without the failure records its event (the trigger was the only cause).
    const ok = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(ok.status).toBe(200);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
  });

  it('sign-in from a signed-in browser: the new session fails to store, and the old one stays with no new event', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const failed = await whileFailing(t, 'sessions', 'insert', () =>
      client.post('/login', { email: user.email, password: TEST_PASSWORD }),
    );
    expect(failed.status).toBe(500);
    // The replaced session's removal is undone with the rest: the browser is still signed in.
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
    expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in', 'sign_in']);
  });

  it('sign-out: ending the session fails after the sign_out event, and the session and no event remain', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const failed = await whileFailing(t, 'sessions', 'delete', () => client.post('/logout'));
    expect(failed.status).toBe(500);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    expect((await client.post('/logout')).status).toBe(200);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in', 'sign_out']);
  });

  it('sudo: the rotated session fails to store after sudo_elevated, and neither is kept', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const failed = await whileFailing(t, 'sessions', 'insert', () =>
      client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD }),
    );
    expect(failed.status).toBe(500);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
    // Sudo was not granted: a sudo-only action still asks for it.
    expect((await client.post('/two-factor/enroll/start', { factor: 'totp' })).status).toBe(403);
    await sudoWithPassword(client);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in', 'sudo_elevated']);
  });

  it('factor enrolment: the factor_enrolled event fails after the factor row, and no factor or codes remain', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    const failed = await whileFailing(t, 'security_events', 'insert', () =>
      client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: totpCode(t, secret) }),
    );
    expect(failed.status).toBe(500);
    const settings = await client.get('/two-factor');
    expect(settings.body.data.enrolled_factors).toEqual([]);
    expect(await recoveryCodeHashes(t, user.id)).toEqual([]);
    expect(await eventTypes(t, user.id)).not.toContain('factor_enrolled');
  });

  it('factor removal and new recovery codes: a failing event leaves the factor and the old codes', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await enrollTotp(t, client);
    const codesBefore = await recoveryCodeHashes(t, user.id);
    expect(codesBefore).toHaveLength(10);
    const eventsBefore = await eventTypes(t, user.id);

    const regenerate = await whileFailing(t, 'security_events', 'insert', () =>
      client.post('/two-factor/recovery-codes'),
    );
    expect(regenerate.status).toBe(500);
    expect(await recoveryCodeHashes(t, user.id)).toEqual(codesBefore);

    const unenroll = await whileFailing(t, 'security_events', 'insert', () =>
      client.post('/two-factor/unenroll', { factor: 'totp' }),
    );
    expect(unenroll.status).toBe(500);
    expect((await client.get('/two-factor')).body.data.enrolled_factors).toEqual(['totp']);
    expect(await recoveryCodeHashes(t, user.id)).toEqual(codesBefore);
    expect(await eventTypes(t, user.id)).toEqual(eventsBefore);

    // Without the failure both go through, each with its event.
    expect((await client.post('/two-factor/recovery-codes')).status).toBe(200);
    expect((await client.post('/two-factor/unenroll', { factor: 'totp' })).status).toBe(200);
    expect(await recoveryCodeHashes(t, user.id)).toEqual([]);
    expect((await eventTypes(t, user.id)).slice(eventsBefore.length)).toEqual([
      'recovery_codes_regenerated',
      'factor_removed',
    ]);
  });
});

describe('second_factor_locked', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('is recorded once per window when the second-factor budget locks, with its notification', async () => {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    nextStep(t);
    const right = totpCode(t, secret);
    const wrong = right === '000000' ? '111111' : '000000';
    let failures = 0;
    while (failures < SECOND_FACTOR_FAILURES_PER_ACCOUNT) {
      const client = await startLogin(t, user);
      for (let i = 0; i < 4 && failures < SECOND_FACTOR_FAILURES_PER_ACCOUNT; i += 1, failures += 1)
        expect((await client.post('/action/handle', { code: wrong })).status).not.toBe(429);
    }
    expect(await eventTypes(t, user.id)).not.toContain('second_factor_locked');
    const client = await startLogin(t, user);
    expect((await client.post('/action/handle', { code: right })).status).toBe(429);
    expect((await client.post('/action/handle', { code: right })).status).toBe(429);
    const locks = (await storedEvents(t, user.id)).filter((e) => e.type === 'second_factor_locked');
    expect(locks).toHaveLength(1);
    expect(locks[0]!.ip).toBeTruthy();
    expect(JSON.stringify(locks[0])).not.toContain(right);
    const notice = await t.mail.waitFor(user.email, { count: 1, match: (m) => /locked/i.test(m.subject) });
    expect(notice.text).not.toMatch(/https?:\/\//);
  });
});
