import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('registers and signs in', async () => {
    const client = t.client();
    const reg = await client.post('/register', {
      username: 'alice',
      email: 'Alice@Example.com',
      password: 'a-long-secret-pw',
      password_confirm: 'a-long-secret-pw',
    });
    expect(reg.status).toBe(201);
    expect(reg.body.user).toEqual({
      id: expect.any(Number),
      username: 'alice',
      email: 'alice@example.com',
      active: true,
    });
    const me = await client.get('/me');
    expect(me.body.user.username).toBe('alice');
  });
});
