import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPlugins, oauthProvider } from '../../../src/index.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

describe('oauth-provider migration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), oauthProvider()] });
  });
  afterAll(() => t.close());

  it('creates the tables the plugin declares', async () => {
    const db = t.services.db;
    const now = new Date().toISOString();
    const user = await t.createUser();
    await db
      .insertInto('oauth_clients')
      .values({
        client_id: 'c1',
        client_secret_hash: null,
        client_name: 'One',
        redirect_uris: '["https://app.example/cb"]',
        post_logout_redirect_uris: '[]',
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        scope: 'openid',
        id_token_signed_response_alg: 'RS256',
        registration: 'admin',
        created_at: now,
      })
      .execute();
    const grant = await db
      .insertInto('oauth_grants')
      .values({ user_id: user.id, client_id: 'c1', scope: 'openid', created_at: now })
      .executeTakeFirstOrThrow();
    const grantId = Number(grant.insertId ?? 0);
    const row = await db.selectFrom('oauth_grants').select(['id', 'user_id']).executeTakeFirstOrThrow();
    expect(row.user_id).toBe(user.id);
    expect(grantId === 0 || grantId === row.id).toBe(true);
  });
});
