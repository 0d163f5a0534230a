/**
 * Connected apps on the account page: the apps a user consented to, and withdrawing one, which
 * ends the consent and every grant of that app for the user: its refresh tokens and codes are
 * gone and its access tokens (RFC 9068 JWTs, checked against the grant) stop working at once.
 * Another user's apps are out of reach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { sha256Hex } from '../../../src/core/crypto.ts';
import { createClient } from '../../../src/auth/oauth-provider/clients.ts';
import { mintAccessToken } from '../../../src/auth/oauth-provider/access-token.ts';
import { providerKeys } from '../../../src/auth/oauth-provider/keys.ts';
import { accessTokenVerifier } from '../../../src/auth/oauth-provider/resource-bearer.ts';
import * as oidc from 'openid-client';
import { startOAuthApp } from './clients-fixture.ts';
import {
  authorizeAsNewBrowser,
  follow,
  registerClient,
  relyingParty,
  startAuthorization,
  startProvider,
} from './flow-fixture.ts';

const ISSUER = 'http://localhost:3000';

describe('connected apps', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOAuthApp();
  });
  afterAll(async () => t?.close());

  async function registeredClient(name: string, registration: 'admin' | 'dynamic' = 'admin') {
    const { client } = await createClient(
      t.services.db,
      {
        client_name: name,
        redirect_uris: [`https://${name.toLowerCase().replace(/\W+/g, '-')}.example.com/cb`],
        post_logout_redirect_uris: [],
        application_type: 'web',
        token_endpoint_auth_method: registration === 'admin' ? 'client_secret_basic' : 'none',
        scope: ['openid', 'profile', 'offline_access'],
        id_token_signed_response_alg: 'RS256',
        registration,
      },
      t.clock.now(),
    );
    return client.client_id;
  }

  /** What a completed authorization leaves: consent, grant, refresh token, code, access token. */
  async function authorize(user: UserRecord, clientId: string) {
    const db = t.services.db;
    const now = t.clock.now().toISOString();
    const consented = await db
      .selectFrom('oauth_consents')
      .select('id')
      .where('user_id', '=', user.id)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!consented)
      await db
        .insertInto('oauth_consents')
        .values({
          user_id: user.id,
          client_id: clientId,
          scope: 'openid profile',
          created_at: now,
          updated_at: now,
        })
        .execute();
    await db
      .insertInto('oauth_grants')
      .values({
        user_id: user.id,
        client_id: clientId,
        scope: 'openid profile offline_access',
        resource: null,
        auth_time: now,
        amr: 'pwd',
        created_at: now,
        revoked_at: null,
      })
      .execute();
    const grant = await db
      .selectFrom('oauth_grants')
      .select('id')
      .where('user_id', '=', user.id)
      .where('client_id', '=', clientId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const grantId = Number(grant.id);
    const expires = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    await db
      .insertInto('oauth_refresh_tokens')
      .values({
        token_hash: sha256Hex(`refresh-${grantId}`),
        grant_id: grantId,
        expires_at: expires,
        used_at: null,
        created_at: now,
      })
      .execute();
    await db
      .insertInto('oauth_codes')
      .values({
        code_hash: sha256Hex(`code-${grantId}`),
        grant_id: grantId,
        redirect_uri: 'https://x.example.com/cb',
        code_challenge: 'x'.repeat(43),
        nonce: null,
        expires_at: expires,
        used_at: null,
      })
      .execute();
    const { token } = await mintAccessToken(providerKeys(t.services), {
      issuer: ISSUER,
      userId: user.id,
      clientId,
      scope: ['openid', 'profile'],
      audience: ISSUER,
      grantId,
      authTime: t.clock.now(),
      ttlSeconds: 600,
      now: t.clock.now(),
    });
    return { grantId, accessToken: token };
  }

  const tokenWorks = async (token: string) =>
    (await accessTokenVerifier(t.services).active(token, t.clock.now())) !== null;

  async function grantState(grantId: number) {
    const db = t.services.db;
    const grant = await db
      .selectFrom('oauth_grants')
      .select('revoked_at')
      .where('id', '=', grantId)
      .executeTakeFirstOrThrow();
    const refresh = await db
      .selectFrom('oauth_refresh_tokens')
      .select('id')
      .where('grant_id', '=', grantId)
      .execute();
    const codes = await db.selectFrom('oauth_codes').select('id').where('grant_id', '=', grantId).execute();
    return { revoked: grant.revoked_at !== null, refreshTokens: refresh.length, codes: codes.length };
  }

  it('lists the apps the user consented to, newest first, with what they may do', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const known = await registeredClient('Known App');
    t.clock.advance(5);
    const unknown = await registeredClient('Self Registered', 'dynamic');
    await authorize(user, known);
    t.clock.advance(5);
    await authorize(user, unknown);
    await authorize(other, known);
    const session = await t.signIn(user);

    const listed = await session.get('/account/apps');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.apps).toEqual([
      {
        client_id: unknown,
        client_name: 'Self Registered',
        verified: false,
        redirect_host: 'self-registered.example.com',
        scope: 'openid profile',
        consented_at: expect.stringMatching(/^\d{4}-/),
        updated_at: expect.stringMatching(/^\d{4}-/),
      },
      expect.objectContaining({ client_id: known, client_name: 'Known App', verified: true }),
    ]);
    const page = await session.get('/account/apps', 'form');
    expect(page.text).toContain('Known App');
    expect(page.text).toContain('Not verified');
    expect(page.text).toContain(`action="/account/apps/${known}/withdraw"`);
    expect((await session.get('/account', 'form')).text).toContain('href="/account/apps"');
    // In the reader's language (here German, chosen with ?lang=).
    const german = await session.get('/account/apps?lang=de', 'form');
    expect(german.text).toContain('Verbundene Apps');
    expect(german.text).toContain('Nicht verifiziert');
    expect((await t.client().get('/account/apps')).status).toBe(401);
  });

  it('withdraw: the consent, the grant, its refresh tokens and codes end; its access token stops working', async () => {
    const user = await t.createUser();
    const clientId = await registeredClient('Withdrawn App');
    const first = await authorize(user, clientId);
    const second = await authorize(user, clientId);
    const session = await t.signIn(user);
    expect(await tokenWorks(first.accessToken)).toBe(true);
    expect(await tokenWorks(second.accessToken)).toBe(true);

    const withdrawn = await session.delete(`/account/apps/${clientId}`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.action).toBe('account.app_withdraw');

    for (const { grantId, accessToken } of [first, second]) {
      expect(await grantState(grantId)).toEqual({ revoked: true, refreshTokens: 0, codes: 0 });
      expect(await tokenWorks(accessToken)).toBe(false);
    }
    const consents = await t.services.db
      .selectFrom('oauth_consents')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(consents).toEqual([]);
    expect((await session.get('/account/apps')).body.data.apps).toEqual([]);
    const events = await t.services.db
      .selectFrom('security_events')
      .select(['type', 'detail'])
      .where('user_id', '=', user.id)
      .where('type', '=', 'oauth_app_withdrawn')
      .execute();
    expect(events.map((event) => JSON.parse(event.detail))).toEqual([
      { client_id: clientId, client_name: 'Withdrawn App' },
    ]);
    // Nothing left to withdraw.
    expect((await session.delete(`/account/apps/${clientId}`)).status).toBe(404);
  });

  it("another user's app, an unknown app: 404, and nothing of theirs ends", async () => {
    const owner = await t.createUser();
    const intruder = await t.createUser();
    const clientId = await registeredClient('Owners App');
    const grant = await authorize(owner, clientId);
    const session = await t.signIn(intruder);
    expect((await session.delete(`/account/apps/${clientId}`)).status).toBe(404);
    expect((await session.post(`/account/apps/${clientId}/withdraw`, {})).status).toBe(404);
    expect((await session.delete('/account/apps/no-such-client')).status).toBe(404);
    expect((await session.delete(`/account/apps/${'x'.repeat(65)}`)).status).toBe(422);
    expect(await grantState(grant.grantId)).toEqual({ revoked: false, refreshTokens: 1, codes: 1 });
    expect(await tokenWorks(grant.accessToken)).toBe(true);
  });

  it('the page: the withdraw button posts with the form token and comes back to the list', async () => {
    const user = await t.createUser();
    const clientId = await registeredClient('Form App');
    const grant = await authorize(user, clientId);
    const session = await t.signIn(user);
    const refused = await session.post(`/account/apps/${clientId}/withdraw`, {}, 'form', { csrf: false });
    expect(refused.status).toBe(403);
    expect(await grantState(grant.grantId)).toMatchObject({ revoked: false });
    const withdrawn = await session.post(`/account/apps/${clientId}/withdraw`, {}, 'form');
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.location).toBe('/account/apps');
    expect(await grantState(grant.grantId)).toEqual({ revoked: true, refreshTokens: 0, codes: 0 });
    const page = await session.get('/account/apps', 'form');
    expect(page.text).toContain('Form App no longer has access to your account.');
    expect(page.text).toContain('No app has access to your account.');
  });

  it('a personal access token needs apps:read / apps:delete', async () => {
    const user = await t.createUser();
    const clientId = await registeredClient('Token App');
    await authorize(user, clientId);
    const issue = async (abilities: string[]) =>
      (await t.services.tokens.issue({ userId: user.id, name: 'x', abilities, expiresAt: null })).token;
    const none = await issue([]);
    const reader = await issue(['apps:read']);
    expect((await t.client().get('/account/apps', 'json', { token: none })).status).toBe(403);
    const listed = await t.client().get('/account/apps', 'json', { token: reader });
    expect(listed.body.data.apps.map((app: { client_id: string }) => app.client_id)).toEqual([clientId]);
    expect((await t.client().delete(`/account/apps/${clientId}`, 'json', { token: reader })).status).toBe(
      403,
    );
    const deleter = await issue(['apps:delete']);
    expect((await t.client().delete(`/account/apps/${clientId}`, 'json', { token: deleter })).status).toBe(
      200,
    );
  });
});

describe('connected apps, end to end with openid-client', () => {
  let t: TestApp;
  let issuer: string;
  beforeAll(async () => {
    ({ t, issuer } = await startProvider());
  });
  afterAll(async () => t?.close());

  it('withdrawing ends the refresh token, the access token at userinfo, and the remembered consent', async () => {
    const user = await t.createUser({ emailVerified: true });
    const { client, clientSecret } = await registerClient(t, { client_name: 'Withdraw RP' });
    const config = await relyingParty(issuer, client.client_id, clientSecret);
    const started = await startAuthorization(config);
    const { browser, callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.refresh_token).toBeTruthy();
    // The app is listed where the user can see it, and it works.
    const listed = await browser.get('/account/apps');
    expect(listed.body.data.apps.map((app: { client_id: string }) => app.client_id)).toEqual([
      client.client_id,
    ]);
    await oidc.fetchUserInfo(config, tokens.access_token, String(user.id));

    const withdrawn = await browser.delete(`/account/apps/${client.client_id}`);
    expect(withdrawn.status, withdrawn.text).toBe(200);

    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const userinfo = await fetch(`${issuer}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    // Consent is asked again: the next authorization stops on the consent page.
    const again = await startAuthorization(config);
    const stop = await follow(browser, issuer, again.url.href);
    expect(stop.external).toBeUndefined();
    expect(stop.response?.status).toBe(200);
    expect(stop.response?.text).toContain('Allow');
  });
});
