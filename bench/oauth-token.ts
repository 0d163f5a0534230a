/**
 * `npx tsx bench/oauth-token.ts`: Citadel's OAuth token endpoint against panva's `oidc-provider`,
 * both on loopback in this process, both storing in SQLite (Citadel: its own SQLite database;
 * oidc-provider: bench/oidc-provider-peer.ts's adapter over a better-sqlite3 file in WAL mode).
 * Two cases, each a fixed number of single-use requests per side, in alternating rounds:
 * - `refresh_token`: a refresh token (each its own grant) rotated into a new one, a new RS256 JWT
 *   access token and, on both sides, a new RS256 ID token;
 * - `authorization_code`: a code (PKCE S256) exchanged for an RS256 ID token, an RS256 JWT access
 *   token and a refresh token.
 * Same client authentication on both sides (client_secret_basic). Codes and refresh tokens are
 * issued directly in each server's storage before a round (not measured).
 *
 * Environment: BENCH_REQUESTS (per side and round, default 1000), BENCH_ROUNDS (default 2),
 * BENCH_CONNECTIONS (default 10).
 */
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { createClient } from '../src/auth/oauth-provider/clients.ts';
import { createGrant, issueCode, issueRefreshToken } from '../src/auth/oauth-provider/token-store.ts';
import { oauthProviderOptions } from '../src/auth/oauth-provider/options.ts';
import { startBenchTarget, type BenchTarget } from './setup.ts';
import { demoWithOAuth } from './oauth-resource.ts';
import { startOidcProviderPeer, type OidcProviderPeer } from './oidc-provider-peer.ts';
import type { LoadResult } from './load.ts';
import { combine } from './rounds.ts';
import { printTable, type Row } from './table.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const log = (line: string) => console.error(`bench: ${line}`);

interface Side {
  url: string;
  authorization: string;
  /** `count` single-use form bodies of the case. */
  bodies(kind: Case, count: number): Promise<string[]>;
}

type Case = 'refresh_token' | 'authorization_code';

/** `count` requests, each with the next body, `CONNECTIONS` at a time; every answer must be a 200. */
async function run(side: Side, bodies: string[]): Promise<LoadResult> {
  let next = 0;
  const cpu = process.cpuUsage();
  // Timed here: autocannon's own duration is counted in whole seconds, too coarse for a fixed amount.
  const started = performance.now();
  const result = await autocannon({
    url: side.url,
    method: 'POST',
    headers: { authorization: side.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    connections: CONNECTIONS,
    amount: bodies.length,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const index = next++;
          // Citadel limits /oauth2/token per client address: each request comes from its own
          // (X-Forwarded-For, trusted from loopback), so the limit is counted but never reached.
          const forwarded = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
          return {
            ...request,
            headers: { ...request.headers, 'x-forwarded-for': forwarded },
            body: bodies[index % bodies.length],
          };
        },
      },
    ],
  });
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return {
    requestsPerSecond: result.requests.total / seconds,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    seconds,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMicros: used.user + used.system,
  };
}

async function citadelSide(target: BenchTarget): Promise<Side> {
  const { services } = target.server;
  const now = () => services.clock.now();
  const author = await services.users.findByEmail('bench@example.com');
  if (!author) throw new Error('no bench author');
  const redirectUri = 'https://bench.example/callback';
  const scope = ['openid', 'offline_access', 'posts:read'];
  const { client, clientSecret } = await createClient(
    services.db,
    {
      client_name: 'Bench client',
      redirect_uris: [redirectUri],
      post_logout_redirect_uris: [],
      application_type: 'web',
      token_endpoint_auth_method: 'client_secret_basic',
      scope,
      id_token_signed_response_alg: 'RS256',
      registration: 'admin',
    },
    now(),
  );
  const { resourceIdentifier } = oauthProviderOptions(services);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const grant = () =>
    createGrant(
      services.db,
      {
        userId: author.id,
        clientId: client.client_id,
        scope,
        resource: resourceIdentifier,
        authTime: now().toISOString(),
        amr: ['pwd'],
      },
      now(),
    );
  return {
    url: `${target.origin}/oauth2/token`,
    authorization: `Basic ${Buffer.from(`${client.client_id}:${clientSecret}`).toString('base64')}`,
    async bodies(kind, count) {
      const bodies: string[] = [];
      for (let i = 0; i < count; i++) {
        const grantId = await grant();
        if (kind === 'refresh_token') {
          const token = await issueRefreshToken(services.db, grantId, now(), 3600);
          bodies.push(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString());
        } else {
          const code = await issueCode(
            services.db,
            { grantId, redirectUri, codeChallenge: challenge, nonce: null },
            new Date(now().getTime() + 3600_000),
          );
          bodies.push(
            new URLSearchParams({
              grant_type: 'authorization_code',
              code,
              redirect_uri: redirectUri,
              code_verifier: verifier,
            }).toString(),
          );
        }
      }
      return bodies;
    },
  };
}

function peerSide(peer: OidcProviderPeer): Side {
  return {
    url: peer.tokenUrl,
    authorization: peer.basic,
    async bodies(kind, count) {
      if (kind === 'refresh_token')
        return (await peer.refreshTokens(count)).map((token) =>
          new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
        );
      return (await peer.codes(count)).map((code) =>
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: peer.redirectUri,
          code_verifier: peer.codeVerifier,
        }).toString(),
      );
    },
  };
}

/** One request checked by hand before measuring: a 200 with an access token. */
async function probe(side: Side, kind: Case): Promise<void> {
  const [body] = await side.bodies(kind, 1);
  const response = await fetch(side.url, {
    method: 'POST',
    headers: { authorization: side.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (
    response.status !== 200 ||
    typeof answer.access_token !== 'string' ||
    typeof answer.id_token !== 'string'
  )
    throw new Error(`${side.url} ${kind}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

async function measure(name: string, kind: Case, citadel: Side, peer: Side): Promise<Row> {
  log(name);
  await probe(citadel, kind);
  await probe(peer, kind);
  // Warm-up, not reported.
  await run(citadel, await citadel.bodies(kind, 200));
  await run(peer, await peer.bodies(kind, 200));
  const ours: LoadResult[] = [];
  const theirs: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [a, b] = [await citadel.bodies(kind, REQUESTS), await peer.bodies(kind, REQUESTS)];
    if (round % 2 === 0) {
      ours.push(await run(citadel, a));
      theirs.push(await run(peer, b));
    } else {
      theirs.push(await run(peer, b));
      ours.push(await run(citadel, a));
    }
  }
  const engine = combine(ours);
  const baseline = combine(theirs);
  for (const [who, result] of [
    ['citadel', engine],
    ['oidc-provider', baseline],
  ] as const)
    if (result.failures > 0) throw new Error(`${name}: ${who} had ${result.failures} failed requests`);
  return { name, dialect: 'sqlite', engine, baseline, load: loadavg()[0]! };
}

async function main(): Promise<void> {
  const options = { ...(await demoWithOAuth()), trustProxy: '127.0.0.1' };
  const target = await startBenchTarget('sqlite', options, 1000, log);
  const peerFile = `/tmp/citadel-bench-oidc-provider-${process.pid}.sqlite`;
  const { resourceIdentifier } = oauthProviderOptions(target.server.services);
  const peer = await startOidcProviderPeer(peerFile, resourceIdentifier);
  try {
    const citadel = await citadelSide(target);
    const other = peerSide(peer);
    const rows = [
      await measure('token: refresh_token (rotated) / oidc-provider', 'refresh_token', citadel, other),
      await measure('token: authorization_code (PKCE) / oidc-provider', 'authorization_code', citadel, other),
    ];
    printTable(rows);
  } finally {
    await peer.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
