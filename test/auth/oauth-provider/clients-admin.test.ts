/**
 * The admin API of OAuth clients: administrators only, sudo for every change; the secret is in
 * the creation (or rotation) answer once, stored as its SHA-256 and never answered again;
 * rotation ends the old secret; a disabled or deleted client cannot take part in a flow and its
 * grants are revoked. The admin pages show the same, the secret once.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { elevate } from '../../support/sudo.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import { findActiveClient, getClient, verifyClientSecret } from '../../../src/auth/oauth-provider/clients.ts';
import { adminClient, startOAuthApp, webClientMetadata } from './clients-fixture.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('admin API of OAuth clients', () => {
  let t: TestApp;
  let admin: TestClient;

  beforeAll(async () => {
    t = await startOAuthApp();
    admin = await adminClient(t);
  });
  afterAll(async () => t?.close());

  async function storedRow(clientId: string) {
    return t.services.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
  }

  async function grantFor(clientId: string) {
    const user = await t.createUser();
    const now = new Date().toISOString();
    await t.services.db
      .insertInto('oauth_grants')
      .values({
        user_id: user.id,
        client_id: clientId,
        scope: 'openid',
        resource: null,
        auth_time: now,
        amr: 'pwd',
        created_at: now,
        revoked_at: null,
      })
      .execute();
  }

  async function liveGrants(clientId: string) {
    const rows = await t.services.db
      .selectFrom('oauth_grants')
      .select('revoked_at')
      .where('client_id', '=', clientId)
      .execute();
    return rows.filter((row) => row.revoked_at === null).length;
  }

  it('register: 201 with client_id and the secret once; the database holds only its SHA-256', async () => {
    const created = await admin.post(
      '/admin/oauth/clients',
      webClientMetadata({
        post_logout_redirect_uris: ['https://app.example.com/bye'],
        id_token_signed_response_alg: 'EdDSA',
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.action).toBe('oauth.client_create');
    const { client_id: clientId, client_secret: secret, client } = created.body.data;
    expect(clientId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client).toEqual({
      client_id: clientId,
      client_name: 'Example App',
      redirect_uris: ['https://app.example.com/callback'],
      post_logout_redirect_uris: ['https://app.example.com/bye'],
      application_type: 'web',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code'],
      scope: 'openid profile email offline_access',
      id_token_signed_response_alg: 'EdDSA',
      registration: 'admin',
      disabled_at: null,
      secret_rotated_at: null,
      created_at: expect.stringMatching(/^\d{4}-/),
    });
    const row = await storedRow(clientId);
    expect(row.client_secret_hash).toBe(sha256(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.registration).toBe('admin');

    // Never again: not in the list, not in the client's own answer.
    const shown = await admin.get(`/admin/oauth/clients/${clientId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.client).toEqual(client);
    const listed = await admin.get('/admin/oauth/clients');
    expect(listed.status).toBe(200);
    expect(listed.body.data.clients.map((c: { client_id: string }) => c.client_id)).toContain(clientId);
    for (const text of [shown.text, listed.text, (await admin.get('/admin/oauth/clients', 'form')).text]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(row.client_secret_hash!);
    }
    expect(verifyClientSecret((await getClient(t.services.db, clientId))!, secret)).toBe(true);
  });

  it('a public client has no secret', async () => {
    const created = await admin.post(
      '/admin/oauth/clients',
      webClientMetadata({
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.client_secret).toBeUndefined();
    expect(created.body.data.client.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect((await storedRow(created.body.data.client_id)).client_secret_hash).toBeNull();
    const rotated = await admin.post(`/admin/oauth/clients/${created.body.data.client_id}/secret`, {});
    expect(rotated.status).toBe(409);
  });

  it.each([
    [{ redirect_uris: ['http://app.example.com/cb'] }, 'redirect_uris'],
    [{ redirect_uris: ['https://app.example.com/cb#x'] }, 'redirect_uris'],
    [{ redirect_uris: ['https://*.example.com/cb'] }, 'redirect_uris'],
    [{ redirect_uris: [] }, 'redirect_uris'],
    [{ scope: '*' }, 'scope'],
    [{ scope: 'openid posts:*' }, 'scope'],
    [{ scope: 'openid nothing:read' }, 'scope'],
    [{ scope: 'openid admin' }, 'scope'],
    [{ token_endpoint_auth_method: 'private_key_jwt' }, 'token_endpoint_auth_method'],
    [{ application_type: 'tv' }, 'application_type'],
    [{ client_name: '' }, 'client_name'],
  ])('refuses %j (422 naming the field)', async (change, field) => {
    const before = (await t.services.db.selectFrom('oauth_clients').select('id').execute()).length;
    const refused = await admin.post('/admin/oauth/clients', webClientMetadata(change));
    expect(refused.status, refused.text).toBe(422);
    expect(Object.keys(refused.body.errors)).toContain(field);
    expect((await t.services.db.selectFrom('oauth_clients').select('id').execute()).length).toBe(before);
  });

  it('rotate: a new secret once, the old one stops working', async () => {
    const created = await admin.post('/admin/oauth/clients', webClientMetadata());
    const { client_id: clientId, client_secret: first } = created.body.data;
    const rotated = await admin.post(`/admin/oauth/clients/${clientId}/secret`, {});
    expect(rotated.status, rotated.text).toBe(200);
    const second = rotated.body.data.client_secret as string;
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    const client = (await getClient(t.services.db, clientId))!;
    expect(verifyClientSecret(client, first)).toBe(false);
    expect(verifyClientSecret(client, second)).toBe(true);
    expect(client.secret_rotated_at).not.toBeNull();
    expect((await storedRow(clientId)).client_secret_hash).toBe(sha256(second));
    expect((await admin.get(`/admin/oauth/clients/${clientId}`)).text).not.toContain(second);
  });

  it('disable: out of every flow, its grants revoked; enable: back; delete: gone', async () => {
    const created = await admin.post('/admin/oauth/clients', webClientMetadata());
    const clientId = created.body.data.client_id as string;
    await grantFor(clientId);
    expect(await findActiveClient(t.services.db, clientId)).toBeDefined();
    expect(await liveGrants(clientId)).toBe(1);

    const disabled = await admin.post(`/admin/oauth/clients/${clientId}/disable`, {});
    expect(disabled.status, disabled.text).toBe(200);
    expect(await findActiveClient(t.services.db, clientId)).toBeUndefined();
    expect(await liveGrants(clientId)).toBe(0);
    expect((await admin.get(`/admin/oauth/clients/${clientId}`)).body.data.client.disabled_at).toMatch(
      /^\d{4}-/,
    );

    const enabled = await admin.post(`/admin/oauth/clients/${clientId}/enable`, {});
    expect(enabled.status).toBe(200);
    expect(await findActiveClient(t.services.db, clientId)).toBeDefined();
    // Enabling does not bring revoked grants back.
    expect(await liveGrants(clientId)).toBe(0);

    await grantFor(clientId);
    const consentUser = await t.createUser();
    const now = new Date().toISOString();
    await t.services.db
      .insertInto('oauth_consents')
      .values({
        user_id: consentUser.id,
        client_id: clientId,
        scope: 'openid',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const deleted = await admin.delete(`/admin/oauth/clients/${clientId}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(await getClient(t.services.db, clientId)).toBeUndefined();
    expect(await liveGrants(clientId)).toBe(0);
    expect(
      await t.services.db
        .selectFrom('oauth_consents')
        .select('id')
        .where('client_id', '=', clientId)
        .execute(),
    ).toEqual([]);
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/secret'],
      ['POST', '/disable'],
      ['POST', '/enable'],
      ['DELETE', ''],
    ] as const) {
      const url = `/admin/oauth/clients/${clientId}${path}`;
      const response =
        method === 'GET'
          ? await admin.get(url)
          : method === 'DELETE'
            ? await admin.delete(url)
            : await admin.post(url, {});
      expect(response.status, `${method} ${url}`).toBe(404);
    }
  });

  it('the flow honours it: a rotated secret, a disabled client are refused at the token and authorize endpoints', async () => {
    const created = await admin.post(
      '/admin/oauth/clients',
      webClientMetadata({ token_endpoint_auth_method: 'client_secret_post' }),
    );
    const { client_id: clientId, client_secret: first } = created.body.data as Record<string, string>;
    const token = async (secret: string) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }).toString(),
      });
      return { status: response.statusCode, body: response.json() as Record<string, unknown> };
    };
    const authorize = () =>
      t.app.inject({
        method: 'GET',
        url: `/oauth2/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'https://app.example.com/callback',
          scope: 'openid',
          state: 'st',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        }).toString()}`,
      });
    expect((await token(first)).status).toBe(200);
    expect((await authorize()).statusCode).toBe(302);

    const second = (await admin.post(`/admin/oauth/clients/${clientId}/secret`, {})).body.data.client_secret;
    expect(await token(first)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect((await token(second)).status).toBe(200);

    await admin.post(`/admin/oauth/clients/${clientId}/disable`, {});
    expect(await token(second)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const refused = await authorize();
    // An unknown (or disabled) client is shown on a page, never redirected to.
    expect(refused.statusCode).toBe(400);
    expect(refused.headers.location).toBeUndefined();

    await admin.post(`/admin/oauth/clients/${clientId}/enable`, {});
    expect((await token(second)).status).toBe(200);
    await admin.delete(`/admin/oauth/clients/${clientId}`);
    expect(await token(second)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('the client id is exact: a case variant is another (unknown) client', async () => {
    const created = await admin.post('/admin/oauth/clients', webClientMetadata());
    const clientId = created.body.data.client_id as string;
    const variant = clientId === clientId.toUpperCase() ? clientId.toLowerCase() : clientId.toUpperCase();
    expect(await findActiveClient(t.services.db, variant)).toBeUndefined();
    expect((await admin.get(`/admin/oauth/clients/${variant}`)).status).toBe(404);
  });

  it('administrators only: 403 for a user (with sudo, with a token); changes need sudo', async () => {
    const user = await t.createUser();
    const session = await t.signIn(user);
    await elevate(session);
    const { token } = await t.services.tokens.issue({
      userId: user.id,
      name: 'all',
      abilities: ['*'],
      expiresAt: null,
    });
    const created = await admin.post('/admin/oauth/clients', webClientMetadata());
    const clientId = created.body.data.client_id as string;
    const calls: [string, string, unknown?][] = [
      ['GET', '/admin/oauth/clients'],
      ['POST', '/admin/oauth/clients', webClientMetadata()],
      ['GET', `/admin/oauth/clients/${clientId}`],
      ['POST', `/admin/oauth/clients/${clientId}/secret`, {}],
      ['POST', `/admin/oauth/clients/${clientId}/disable`, {}],
      ['POST', `/admin/oauth/clients/${clientId}/enable`, {}],
      ['DELETE', `/admin/oauth/clients/${clientId}`],
    ];
    for (const [method, url, body] of calls) {
      for (const [who, client, options] of [
        ['session', session, undefined],
        ['token', t.client(), { token }],
      ] as const) {
        const response =
          method === 'GET'
            ? await client.get(url, 'json', options)
            : method === 'DELETE'
              ? await client.delete(url, 'json', options)
              : await client.post(url, body, 'json', options);
        expect(response.status, `${who} ${method} ${url}`).toBe(403);
        expect(response.text).not.toContain('client_secret"');
      }
      expect((await t.client().get('/admin/oauth/clients')).status).toBe(401);
    }
    expect((await getClient(t.services.db, clientId))!.disabled_at).toBeNull();

    // An administrator without a recent sudo proof may read, not change.
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const fresh = await t.signIn(root);
    expect((await fresh.get('/admin/oauth/clients')).status).toBe(200);
    const refused = await fresh.post('/admin/oauth/clients', webClientMetadata());
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('sudo.required');
    expect((await fresh.post(`/admin/oauth/clients/${clientId}/disable`, {})).body.action).toBe(
      'sudo.required',
    );
    await elevate(fresh);
    expect((await fresh.post('/admin/oauth/clients', webClientMetadata())).status).toBe(201);
  });

  it('the pages: register through the form, the secret shown once, rotate, disable', async () => {
    const created = await admin.post(
      '/admin/oauth/clients',
      {
        client_name: 'Form <App>',
        redirect_uris: 'https://form.example.com/cb\nhttps://form.example.com/cb2',
        token_endpoint_auth_method: 'client_secret_post',
        application_type: 'web',
        scope: 'openid email',
      },
      'form',
    );
    expect(created.status, created.text.slice(0, 500)).toBe(201);
    const secret = /id="new-secret-value">([^<]+)</.exec(created.text)?.[1];
    const clientId = /id="new-client-id">([^<]+)</.exec(created.text)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.text).toContain('Form &lt;App&gt;');
    const client = (await getClient(t.services.db, clientId!))!;
    expect(client.redirect_uris).toEqual(['https://form.example.com/cb', 'https://form.example.com/cb2']);
    expect(client.scope).toEqual(['openid', 'email']);
    expect(verifyClientSecret(client, secret!)).toBe(true);

    const page = await admin.get(`/admin/oauth/clients/${clientId}`, 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('https://form.example.com/cb2');
    expect(page.text).not.toContain(secret!);

    const rotated = await admin.post(`/admin/oauth/clients/${clientId}/secret`, {}, 'form');
    const next = /id="new-secret-value">([^<]+)</.exec(rotated.text)?.[1];
    expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifyClientSecret((await getClient(t.services.db, clientId!))!, next!)).toBe(true);

    const disabled = await admin.post(`/admin/oauth/clients/${clientId}/disable`, {}, 'form');
    expect(disabled.status).toBe(303);
    expect(disabled.location).toBe(`/admin/oauth/clients/${clientId}`);
    expect((await admin.get(`/admin/oauth/clients/${clientId}`, 'form')).text).toContain('Enable client');

    // A refused registration shows the form again with the field's error.
    const refused = await admin.post(
      '/admin/oauth/clients',
      {
        client_name: 'Bad',
        redirect_uris: 'http://bad.example.com/cb',
        token_endpoint_auth_method: 'none',
        scope: 'openid',
      },
      'form',
    );
    expect(refused.text).toContain('A web client&#39;s redirect URI uses https');
  });
});
