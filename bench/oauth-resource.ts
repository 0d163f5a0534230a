/**
 * `npx tsx bench/oauth-resource.ts`: what an OAuth access token (RFC 9068, RS256) costs as a bearer
 * of the resource API. One pair per database, on the demo server with the OAuth provider (loopback,
 * autocannon, rounds alternating): a single post read with the access token against the same read
 * with a session cookie of the same user (the same statement on both sides; aim: within 10%).
 * The token is minted by the provider's signer on a real grant (the same claims the token endpoint
 * puts in); every request verifies it (cached once verified) and reads its grant.
 *
 * Environment: BENCH_DURATION (seconds per case and side, default 4), BENCH_CONNECTIONS (10),
 * BENCH_ROWS (posts, default 10000), BENCH_DIALECTS (default "sqlite,postgres").
 */
import type { TestDialect } from '../test/support/databases.ts';
import type { CitadelOptions } from '../src/config/types.ts';
import { oauthProvider } from '../src/auth/oauth-provider/plugin.ts';
import { createClient } from '../src/auth/oauth-provider/clients.ts';
import { createGrant } from '../src/auth/oauth-provider/token-store.ts';
import { mintAccessToken } from '../src/auth/oauth-provider/access-token.ts';
import { providerKeys } from '../src/auth/oauth-provider/keys.ts';
import { oauthProviderOptions } from '../src/auth/oauth-provider/options.ts';
import { demoOptions, startBenchTarget, type BenchTarget } from './setup.ts';
import { pair } from './rounds.ts';
import { printTable, type Row } from './table.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];

const log = (line: string) => console.error(`bench: ${line}`);

/** The demo's options with the OAuth provider (added when the demo does not list it). */
export async function demoWithOAuth(): Promise<CitadelOptions> {
  const options = await demoOptions();
  const plugins = options.plugins ?? [];
  if (plugins.some((plugin) => plugin.id === 'oauth-provider')) return options;
  return { ...options, plugins: [...plugins, oauthProvider()] };
}

/** An access token of the bench author (the session's user) for the resource API, `posts:read`. */
async function accessTokenOfSessionUser(target: BenchTarget): Promise<string> {
  const { services } = target.server;
  const now = services.clock.now();
  const author = await services.users.findByEmail('bench@example.com');
  if (!author) throw new Error('no bench author');
  const { client } = await createClient(
    services.db,
    {
      client_name: 'Bench client',
      redirect_uris: ['https://bench.example/callback'],
      post_logout_redirect_uris: [],
      application_type: 'web',
      token_endpoint_auth_method: 'client_secret_basic',
      scope: ['openid', 'posts:read'],
      id_token_signed_response_alg: 'RS256',
      registration: 'admin',
    },
    now,
  );
  const { issuer, resourceIdentifier } = oauthProviderOptions(services);
  const scope = ['openid', 'posts:read'];
  const grantId = await createGrant(
    services.db,
    {
      userId: author.id,
      clientId: client.client_id,
      scope,
      resource: resourceIdentifier,
      authTime: now.toISOString(),
      amr: ['pwd'],
    },
    now,
  );
  const { token } = await mintAccessToken(providerKeys(services), {
    issuer,
    userId: author.id,
    clientId: client.client_id,
    scope,
    audience: resourceIdentifier,
    grantId,
    authTime: now,
    ttlSeconds: 3600,
    now,
  });
  return token;
}

async function main(): Promise<void> {
  const options = await demoWithOAuth();
  const rows: Row[] = [];
  for (const dialect of DIALECTS) {
    const target = await startBenchTarget(dialect, options, ROWS, (line) => log(`${dialect}: ${line}`));
    try {
      const token = await accessTokenOfSessionUser(target);
      const get = {
        durationSeconds: DURATION,
        connections: CONNECTIONS,
        headers: { accept: 'application/json' },
      };
      const bearer = { ...get, headers: { ...get.headers, authorization: `Bearer ${token}` } };
      const cookie = { ...get, headers: { ...get.headers, cookie: target.sessionCookie } };
      const read = target.engineBase + target.readPath;
      // Both sides must read the same thing as the same user before they are compared.
      const [withToken, withSession] = await Promise.all(
        [bearer, cookie].map(async ({ headers }) => {
          const response = await fetch(read, { headers });
          if (response.status !== 200) throw new Error(`${read} answered ${response.status}`);
          return response.text();
        }),
      );
      if (withToken !== withSession) throw new Error('the token and the session read different answers');
      rows.push(await pair('OAuth access token read / session read', dialect, read, read, bearer, cookie));
    } finally {
      await target.close();
    }
  }
  printTable(rows);
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
