import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { TEST_PASSWORD } from './app.ts';
import type { TestClient } from './client.ts';

/** A signed-in client (password TEST_PASSWORD) elevated through POST /sudo/verify. */
export async function elevatedClient(t: TestApp): Promise<{ client: TestClient; userId: number }> {
  const user = await t.createUser();
  const client = await t.signIn(user);
  await elevate(client);
  return { client, userId: user.id };
}

export async function elevate(client: TestClient, password = TEST_PASSWORD): Promise<void> {
  const verify = await client.post('/sudo/verify', { factor: 'password', proof: password });
  expect(verify.status, verify.text).toBe(200);
}
