import { expect } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { TEST_PASSWORD, type TestApp } from './app.ts';
import type { TestClient } from './client.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

/** The code an authenticator app shows at the test clock's time, `stepOffset` steps away. */
export function totpCode(t: TestApp, secret: string, stepOffset = 0): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: t.clock.now().getTime() + stepOffset * 30_000,
  });
}

/** Move the clock to the start of a fresh 30-second step, so ±1-step arithmetic is exact. */
export function nextStep(t: TestApp): void {
  const ms = t.clock.now().getTime();
  t.clock.advance((30_000 - (ms % 30_000)) / 1000 + 1);
}

export async function sudoWithPassword(client: TestClient, password = TEST_PASSWORD): Promise<void> {
  const res = await client.post('/sudo/verify', { factor: 'password', proof: password });
  expect(res.status, res.text).toBe(200);
}

/** Enroll TOTP for a signed-in client (elevating with the password first); returns the secret and codes. */
export async function enrollTotp(
  t: TestApp,
  client: TestClient,
): Promise<{ secret: string; recoveryCodes: string[] | undefined }> {
  await sudoWithPassword(client);
  const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
  expect(start.status, start.text).toBe(200);
  const secret = start.body.data.secret as string;
  const confirm = await client.post('/two-factor/enroll/confirm', {
    factor: 'totp',
    proof: totpCode(t, secret),
  });
  expect(confirm.status, confirm.text).toBe(200);
  return { secret, recoveryCodes: confirm.body.data.recovery_codes };
}

/** POST /login for a user whose sign-in stops at the two_factor step. */
export async function startLogin(t: TestApp, user: UserRecord, client = t.client()): Promise<TestClient> {
  const res = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
  expect(res.status, res.text).toBe(200);
  expect(res.body.action).toBe('login.action_required');
  const show = await client.get('/action/show');
  expect(show.body.data.action).toBe('two_factor');
  return client;
}
