/**
 * Issue 13, item 9: a sudo `next` target with characters beyond Latin-1 (planted by a GET) is
 * percent-encoded, so the redirect works and the user stays signed in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { safeNext } from '../../src/auth/core/sudo/next.ts';

describe('sudo next with non-Latin-1 characters', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('a form client is sent to the encoded path and stays signed in', async () => {
    const client = await t.signIn(await t.createUser());
    expect((await client.get('/sudo?next=/%E2%98%83', 'form')).status).toBe(200);
    const verify = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD }, 'form');
    expect(verify.status).toBe(303);
    expect(verify.location).toBe('/%E2%98%83');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('JSON clients get the encoded path too; an explicit next in the body as well', async () => {
    const client = await t.signIn(await t.createUser());
    const verify = await client.post('/sudo/verify', {
      factor: 'password',
      proof: TEST_PASSWORD,
      next: '/über/☃?q=ü',
    });
    expect(verify.status).toBe(200);
    expect(verify.body.redirect_to).toBe('/%C3%BCber/%E2%98%83?q=%C3%BC');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('safeNext: ASCII paths unchanged, others encoded, lone surrogates and off-site targets refused', () => {
    expect(safeNext('/tokens?x=1')).toBe('/tokens?x=1');
    expect(safeNext('/a b')).toBe('/a%20b');
    expect(safeNext('/\ud800')).toBeNull();
    expect(safeNext('//evil.example')).toBeNull();
    expect(safeNext('/\\evil.example')).toBeNull();
  });
});
