import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import {
  NotFoundError,
  type Database,
  defineEndpoint,
  type EndpointInput,
  Envelope,
  changeWithEvent,
  originOf,
  type DeclaredEventTypes,
} from '../../plugin-api.ts';
import { accountAppsPage, type ConnectedApp } from './account-apps-page.ts';
import { oauthProviderMessages } from './messages/index.ts';

/**
 * The apps a user let sign them in (the consents they gave), on the account page, and
 * withdrawing one: the consent ends, and so does every grant of that app for the user, with the
 * refresh and access tokens issued from it.
 */

/** The security event of a withdrawal (the user's own). */
export const ACCOUNT_APPS_EVENTS = [{ type: 'oauth_app_withdrawn', label: 'App access withdrawn' }] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof ACCOUNT_APPS_EVENTS> {}
}

const AppSchema = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  verified: Type.Boolean({ description: 'false: the app registered itself (dynamic registration)' }),
  redirect_host: Type.String({ description: 'Where the app sends you back' }),
  scope: Type.String({ description: 'What you consented to, separated by spaces' }),
  consented_at: Type.String(),
  updated_at: Type.String(),
});

function hostOf(uri: string | undefined): string {
  if (uri === undefined) return '';
  try {
    const url = new URL(uri);
    return url.host || url.protocol;
  } catch {
    return '';
  }
}

/** The user's consents, newest first, with the names of the apps that still exist. */
export async function connectedApps(db: Kysely<Database>, userId: number): Promise<ConnectedApp[]> {
  const rows = await db
    .selectFrom('oauth_consents')
    .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_consents.client_id')
    .select([
      'oauth_consents.client_id',
      'oauth_consents.scope',
      'oauth_consents.created_at',
      'oauth_consents.updated_at',
      'oauth_clients.client_name',
      'oauth_clients.registration',
      'oauth_clients.redirect_uris',
    ])
    .where('oauth_consents.user_id', '=', userId)
    .orderBy('oauth_consents.updated_at', 'desc')
    .orderBy('oauth_consents.id', 'desc')
    .execute();
  return rows.map((row) => {
    let first: string | undefined;
    try {
      first = (JSON.parse(row.redirect_uris) as unknown[]).find(
        (uri): uri is string => typeof uri === 'string',
      );
    } catch {
      first = undefined;
    }
    return {
      client_id: row.client_id,
      client_name: row.client_name,
      verified: row.registration === 'admin',
      redirect_host: hostOf(first),
      scope: row.scope,
      consented_at: row.created_at,
      updated_at: row.updated_at,
    };
  });
}

/**
 * End what a user gave an app: the consent, every live grant (revoked: its access tokens stop
 * working) with its refresh tokens and codes, and any authorization still waiting. Whether there
 * was anything to end.
 */
export async function withdrawApp(
  db: Kysely<Database>,
  userId: number,
  clientId: string,
  now: Date,
): Promise<boolean> {
  const consent = await db
    .deleteFrom('oauth_consents')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  const grants = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute();
  const grantIds = grants.map((grant) => Number(grant.id));
  if (grantIds.length > 0) {
    await db
      .updateTable('oauth_grants')
      .set({ revoked_at: now.toISOString() })
      .where('id', 'in', grantIds)
      .execute();
    await db.deleteFrom('oauth_refresh_tokens').where('grant_id', 'in', grantIds).execute();
    await db.deleteFrom('oauth_codes').where('grant_id', 'in', grantIds).execute();
  }
  await db
    .deleteFrom('oauth_pending_authorizations')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .execute();
  return Number(consent.numDeletedRows) > 0 || grantIds.length > 0;
}

async function appsPageProps(input: EndpointInput): Promise<{ apps: ConnectedApp[] }> {
  const { caller, services } = input;
  return { apps: caller ? await connectedApps(services.db, caller.user.id) : [] };
}

const list = defineEndpoint({
  method: 'GET',
  path: '/account/apps',
  action: 'account.apps',
  auth: 'session',
  ability: 'apps:read',
  summary: 'The apps you let sign you in (OAuth consents), newest first',
  responses: { 200: Envelope({ data: Type.Object({ apps: Type.Array(AppSchema) }) }) },
  rateLimit: { name: 'oauth:account-apps', max: 300, windowSeconds: 60, per: 'user' },
  page: accountAppsPage,
  pageProps: appsPageProps,
  async handler({ caller, services }) {
    return {
      status: 'success',
      data: { apps: await connectedApps(services.db, caller.user.id) },
      render: true,
    };
  },
});

const withdraw = defineEndpoint({
  method: 'DELETE',
  path: '/account/apps/:client_id',
  aliases: [{ method: 'POST', path: '/account/apps/:client_id/withdraw' }],
  action: 'account.app_withdraw',
  auth: 'session',
  ability: 'apps:delete',
  impersonation: 'forbidden',
  summary: "Withdraw an app's access: your consent and every token it holds for you end",
  params: Type.Object({
    client_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  }),
  failures: [404],
  responses: { 200: Envelope() },
  rateLimit: { name: 'oauth:account-apps:withdraw', max: 60, windowSeconds: 60, per: 'user' },
  page: accountAppsPage,
  pageProps: appsPageProps,
  async handler(request) {
    const { caller, params, services } = request;
    const userId = caller.user.id;
    const client = await services.db
      .selectFrom('oauth_clients')
      .select('client_name')
      .where('client_id', '=', params.client_id)
      .executeTakeFirst();
    const withdrawn = await changeWithEvent(
      services,
      {
        userId,
        type: 'oauth_app_withdrawn',
        ...originOf(request),
        detail: { client_id: params.client_id, client_name: client?.client_name ?? null },
      },
      (db) => withdrawApp(db, userId, params.client_id, services.clock.now()),
      (done) => done,
    );
    // Someone else's app and no app at all look the same.
    if (!withdrawn) throw new NotFoundError(oauthProviderMessages.text('apps.notFound'));
    return {
      status: 'success',
      message: oauthProviderMessages.text('apps.withdrawn', {
        name: client?.client_name ?? params.client_id,
      }),
      redirect_to: '/account/apps',
    };
  },
});

/** The account page's connected apps. */
export const accountAppsEndpoints = [list, withdraw] as const;
