import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * GET /me answers through a compiled response schema (issue 12): it must send exactly the envelope
 * JSON.stringify sent before (a field left out of the schema would silently disappear).
 */
describe('GET /me through its compiled schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('sends the whole envelope and user, nothing more, nothing less', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const response = await client.get('/me');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.text)).toEqual({
      action: 'me',
      status: 'success',
      statusCode: 200,
      user: { id: user.id, username: user.username, email: user.email, active: true },
    });
  });

  it('leaves the other answers alone: the 401 envelope, and the redirect a form client gets', async () => {
    const anonymous = await t.client().get('/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ status: 'error', statusCode: 401 });
    const user = await t.createUser();
    const browser = await t.signIn(user);
    const form = await browser.get('/me', 'form');
    expect(form.status).toBe(303);
    expect(form.headers.location).toBe('/');
  });
});
