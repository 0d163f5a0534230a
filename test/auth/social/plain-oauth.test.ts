import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { MockProvider, authorize, socialPlugins, startSignIn } from '../../support/mock-provider.ts';
import { isPlaceholderEmail } from '../../../src/auth/social/identities.ts';

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/**
 * A GitHub-shaped REST API on loopback: /user and /user/emails, answering only to access tokens
 * the OAuth server really issued. Authorization and token endpoints are oauth2-mock-server's.
 */
class GitHubApi {
  user: Record<string, unknown> = {};
  emails: GitHubEmail[] = [];
  readonly requests: string[] = [];
  private server: Server | null = null;

  constructor(private readonly issued: string[]) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !this.issued.includes(token)) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
        return;
      }
      const body = req.url === '/user' ? this.user : req.url === '/user/emails' ? this.emails : null;
      if (body === null) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('plain OAuth 2.0 providers (explicit endpoints, no discovery)', () => {
  let mock: MockProvider;
  let github: GitHubApi;
  let t: TestApp;
  beforeAll(async () => {
    mock = await new MockProvider().start();
    github = new GitHubApi(mock.issuedAccessTokens);
    const api = await github.start();
    t = await startTestApp({
      plugins: socialPlugins([
        {
          id: 'github',
          label: 'GitHub',
          clientId: 'gh-client',
          clientSecret: 'gh-secret',
          authorizationUrl: `${mock.issuer}/authorize`,
          tokenUrl: `${mock.issuer}/token`,
          userinfoUrl: `${api}/user`,
          scopes: ['read:user', 'user:email'],
        },
        {
          id: 'acme',
          label: 'Acme',
          clientId: 'acme-client',
          clientSecret: 'acme-secret',
          authorizationUrl: `${mock.issuer}/authorize`,
          tokenUrl: `${mock.issuer}/token`,
          userinfoUrl: `${mock.issuer}/userinfo`,
          scopes: ['profile'],
        },
      ]),
    });
  });
  afterAll(async () => {
    await t?.close();
    await github?.stop();
    await mock?.stop();
  });

  async function signIn(provider: string) {
    const client = t.client();
    const url = await startSignIn(client, provider);
    return { url, client, response: await client.get(await authorize(url)) };
  }

  it('uses PKCE and state but no nonce, and reads the GitHub verified primary email', async () => {
    github.user = { id: 4242, login: 'octo-cat', name: 'Octo Cat', email: 'public@example.com' };
    github.emails = [
      { email: 'secondary@example.com', primary: false, verified: true },
      { email: 'Octo@Example.com', primary: true, verified: true },
    ];
    const { url, client, response } = await signIn('github');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.has('nonce')).toBe(false);
    expect(url.searchParams.get('scope')).toBe('read:user user:email');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/oauth/callback/github');

    expect(response.status, response.text).toBe(200);
    expect(response.body.user).toMatchObject({ username: 'octo cat', email: 'octo@example.com' });
    expect(github.requests).toEqual(['/user', '/user/emails']);
    const identity = await t.services.db
      .selectFrom('oauth_identities')
      .selectAll()
      .where('provider', '=', 'github')
      .executeTakeFirstOrThrow();
    expect(identity.subject).toBe('4242');
    expect((await client.get('/me')).body.user.id).toBe(response.body.user.id);

    // Again: the same account, by identity.
    expect((await signIn('github')).response.body.user.id).toBe(response.body.user.id);
  });

  it('links on the verified primary email, never on an unverified one or the public /user email', async () => {
    const owner = await t.createUser({ email: 'owner@example.com', emailVerified: true });
    github.user = { id: 5001, login: 'squatter', email: 'owner@example.com' };
    github.emails = [{ email: 'owner@example.com', primary: true, verified: false }];
    const squat = await signIn('github');
    expect(squat.response.status).toBe(200);
    expect(squat.response.body.user.id).not.toBe(owner.id);
    expect(isPlaceholderEmail(squat.response.body.user.email)).toBe(true);

    github.user = { id: 5002, login: 'owner' };
    github.emails = [{ email: 'owner@example.com', primary: true, verified: true }];
    const linked = await signIn('github');
    expect(linked.response.body.user.id).toBe(owner.id);
  });

  it('reads a generic provider profile from its userinfo URL', async () => {
    mock.identity = {
      sub: 'acme-user-1',
      email: 'acme@example.com',
      email_verified: true,
      name: 'Acme Person',
    };
    const { response } = await signIn('acme');
    expect(response.status, response.text).toBe(200);
    expect(response.body.user).toMatchObject({ username: 'Acme Person', email: 'acme@example.com' });
  });

  it('answers 400 when the profile cannot be read', async () => {
    github.user = {};
    const { response } = await signIn('github');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ action: 'social.login', status: 'error' });
  });
});
