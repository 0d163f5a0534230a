import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { codeIn } from '../../support/mail.ts';
import { acceptTermsAction } from '../../../examples/blog/actions/accept-terms.ts';
import type { PipelineAction } from '../../../src/index.ts';

/** An automatic action like the two-factor module's: pending only for some users, reads the whole body. */
const seen: Record<string, unknown>[] = [];
const automaticProbe: PipelineAction = {
  id: 'probe',
  label: 'Probe',
  automatic: true,
  isPendingFor: (ctx) => ctx.user.username.startsWith('probed'),
  async handle(_ctx, body) {
    seen.push(body);
    return body.factor === 'totp' && body.proof === 'ok';
  },
};

describe('several actions in sequence (email_2fa, accept_terms)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      loginActions: ['email_2fa', 'accept_terms'],
      actions: [acceptTermsAction, automaticProbe],
    });
  });
  afterAll(async () => t?.close());

  async function login(username?: string) {
    const user = await t.createUser(username ? { username } : {});
    const client = t.client();
    const res = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(res.body.action).toBe('login.action_required');
    const code = codeIn(await t.mail.waitFor(user.email, { count: 1 }));
    return { user, client, code };
  }

  it('action.next after the code, then accept_terms: 422 without accept, success with it', async () => {
    const { user, client, code } = await login();
    const next = await client.post('/action/handle', { code });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ action: 'action.next', status: 'info', redirect_to: '/action/show' });
    expect((await client.get('/me')).status).toBe(401);

    const show = await client.get('/action/show');
    expect(show.body.data.action).toBe('accept_terms');

    const refused = await client.post('/action/handle', {});
    expect(refused.status).toBe(422);
    expect(refused.body.errors.accept).toBeTruthy();
    const notTrue = await client.post('/action/handle', { accept: false });
    expect(notTrue.status).toBe(422);
    expect((await client.get('/me')).status).toBe(401);

    const done = await client.post('/action/handle', { accept: true });
    expect(done.body).toMatchObject({ action: 'action.success', status: 'success', redirect_to: '/' });
    expect(done.body.user.id).toBe(user.id);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });

  it('the email code does not pass the next action', async () => {
    const { client, code } = await login();
    await client.post('/action/handle', { code });
    const reuse = await client.post('/action/handle', { code });
    expect(reuse.status).toBe(422);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('automatic actions run last, only for users they are pending for, with the whole body', async () => {
    const { client, code } = await login('probed user');
    await client.post('/action/handle', { code });
    await client.post('/action/handle', { accept: '1' });
    expect((await client.get('/action/show')).body.data.action).toBe('probe');
    const wrong = await client.post('/action/handle', { factor: 'totp', proof: 'no' });
    expect(wrong.status).toBe(404);
    const done = await client.post('/action/handle', { factor: 'totp', proof: 'ok', extra: 'x' });
    expect(done.body.action).toBe('action.success');
    expect(seen.at(-1)).toMatchObject({ factor: 'totp', proof: 'ok', extra: 'x' });

    // Not pending for other users: they finish after accept_terms.
    const other = await login();
    await other.client.post('/action/handle', { code: other.code });
    expect((await other.client.post('/action/handle', { accept: 'on' })).body.action).toBe('action.success');
  });

  it('cancel wipes the context (POST and GET)', async () => {
    for (const method of ['POST', 'GET'] as const) {
      const { client, code } = await login();
      const cancelled =
        method === 'POST' ? await client.post('/action/cancel') : await client.get('/action/cancel');
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({
        action: 'action.cancelled',
        status: 'info',
        redirect_to: '/login',
      });
      expect((await client.get('/action/show')).status).toBe(401);
      expect((await client.post('/action/handle', { code })).status).toBe(401);
      expect((await client.get('/me')).status).toBe(401);
    }
  });

  it('GET /action/show without a context is a 401 to /login', async () => {
    const show = await t.client().get('/action/show');
    expect(show.status).toBe(401);
    expect(show.body).toMatchObject({ status: 'error', redirect_to: '/login' });
    expect((await t.client().post('/action/challenge')).status).toBe(401);
    expect((await t.client().post('/action/handle', { code: '123456' })).status).toBe(401);
  });

  it('a signed-in user is not signed in as someone else by a pending sign-in', async () => {
    const first = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: first.email, password: TEST_PASSWORD });
    const code = codeIn(await t.mail.waitFor(first.email, { count: 1 }));
    await client.post('/action/handle', { code });
    await client.post('/action/handle', { accept: true });
    expect((await client.get('/me')).body.user.id).toBe(first.id);

    // Starting another sign-in on the same browser ends the first session.
    const second = await t.createUser();
    await client.post('/login', { email: second.email, password: TEST_PASSWORD });
    expect((await client.get('/me')).status).toBe(401);
  });
});
