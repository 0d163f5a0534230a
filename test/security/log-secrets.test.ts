/**
 * Contract section 14: logs never hold a secret. Every route that takes a token in its path or
 * query declares the names (`config: { secrets }`), and the request serializer redacts them from
 * that declaration; a plugin's route declares its own the same way. The log is read at trace
 * level, the most that Citadel ever writes.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { defaultPlugins, defineEndpoint, definePlugin, Envelope, organizations } from '../../src/index.ts';
import { redactUrl, SecretPaths } from '../../src/http/security/logging.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { linkIn, type CapturedMail } from '../support/mail.ts';
import { elevate } from '../support/sudo.ts';

const secret = () => `s3cr3t${randomBytes(18).toString('base64url')}`;

/** A plugin of the application's whose invitation links carry two secrets of its own naming. */
const invitations = definePlugin({
  id: 'invitations-test',
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/invitations/:invite/accept',
      action: 'invitation.accept',
      auth: 'optional',
      params: Type.Object({ invite: Type.String() }),
      query: Type.Object({ sig: Type.Optional(Type.String()), from: Type.Optional(Type.String()) }),
      secrets: ['invite', 'sig'],
      responses: { 200: Envelope({ data: Type.Object({ from: Type.Optional(Type.String()) }) }) },
      async handler({ query }) {
        return { status: 'success', data: { from: query.from } };
      },
    }),
  ],
});

describe('secret path and query parameters are redacted from their route declaration', () => {
  let t: TestApp;
  const lines: string[] = [];
  /** What each route declared, seen by a hook on the request (pattern → secrets). */
  const declared = new Map<string, readonly string[] | undefined>();

  beforeAll(async () => {
    t = await startTestApp({
      logger: undefined,
      logLevel: 'trace',
      logStream: { write: (line: string) => void lines.push(line) },
      plugins: [...defaultPlugins(), organizations(), invitations],
      routes: (app) => {
        app.addHook('onRequest', async (request) => {
          declared.set(`${request.method} ${request.routeOptions.url}`, request.routeOptions.config.secrets);
        });
      },
    });
  });
  afterAll(async () => t?.close());

  it('every built-in token route declares its secret parameters', async () => {
    const routes: [string, string, string][] = [
      ['GET', '/magic-link/verify/:token', `/magic-link/verify/${secret()}`],
      ['GET', '/magic-link/verify', `/magic-link/verify?token=${secret()}`],
      ['GET', '/reset-password', `/reset-password?token=${secret()}`],
      ['POST', '/reset-password', `/reset-password?token=${secret()}`],
      ['GET', '/account/email/verify/:token', `/account/email/verify/${secret()}`],
      ['GET', '/oauth/callback/:provider', `/oauth/callback/nope?code=${secret()}&state=${secret()}`],
    ];
    for (const [method, , url] of routes) await t.app.inject({ method: method as 'GET', url });
    expect(Object.fromEntries(routes.map(([m, p]) => [`${m} ${p}`, declared.get(`${m} ${p}`)]))).toEqual({
      'GET /magic-link/verify/:token': ['token'],
      'GET /magic-link/verify': ['token'],
      'GET /reset-password': ['token'],
      'POST /reset-password': ['token'],
      'GET /account/email/verify/:token': ['token'],
      'GET /oauth/callback/:provider': ['code', 'state'],
    });
  });

  it('a trace-level log of every token route holds none of the tokens', async () => {
    lines.length = 0;
    const user = await t.createUser();
    // Real links, as mailed: a magic link (path form) and a reset link (query form).
    await t.client().post('/magic-link', { email: user.email });
    const magicPrefix = 'http://localhost:3000/magic-link/verify/';
    const magic = linkIn(await t.mail.waitFor(user.email, { count: 1 }), magicPrefix).slice(
      magicPrefix.length,
    );
    await t.client().post('/forgot-password', { email: user.email });
    const resetLink = linkIn(
      await t.mail.waitFor(user.email, { count: 2 }),
      'http://localhost:3000/reset-password?token=',
    );
    const reset = new URL(resetLink).searchParams.get('token')!;
    const tokens = { magic, reset, email: secret(), code: secret(), state: secret(), query: secret() };
    const urls = [
      `/magic-link/verify/${tokens.magic}`,
      `/magic-link/verify/${tokens.magic}/`,
      `/magic-link/verify?token=${tokens.query}`,
      `/reset-password?token=${encodeURIComponent(tokens.reset)}`,
      `/account/email/verify/${tokens.email}`,
      `/oauth/callback/nope?code=${tokens.code}&state=${tokens.state}&error=x`,
    ];
    for (const url of urls) {
      for (const accept of ['application/json', 'text/html']) {
        const response = await t.app.inject({ method: 'GET', url, headers: { accept } });
        expect(response.statusCode, url).toBeLessThan(500);
      }
    }
    const log = lines.join('\n');
    for (const [name, value] of Object.entries(tokens)) expect(log, name).not.toContain(value);
    expect(log).toContain('"url":"/magic-link/verify/[redacted]"');
    expect(log).toContain('"url":"/magic-link/verify/[redacted]/"');
    expect(log).toContain('"url":"/account/email/verify/[redacted]"');
    expect(log).toContain('"url":"/oauth/callback/nope?code=%5Bredacted%5D&state=%5Bredacted%5D&error=x"');
  });

  it('a token in a URL path never reaches any log line: valid, unknown or malformed, whatever the answer', async () => {
    lines.length = 0;
    const app = 'http://localhost:3000';
    const tokenAfter = (mail: CapturedMail, prefix: string) =>
      decodeURIComponent(new URL(linkIn(mail, `${app}${prefix}`)).pathname.slice(prefix.length));
    // Valid tokens of every link Citadel mails, as mailed.
    const user = await t.createUser();
    await t.client().post('/magic-link', { email: user.email });
    const magic = tokenAfter(await t.mail.waitFor(user.email, { count: 1 }), '/magic-link/verify/');
    await t.client().post('/forgot-password', { email: user.email });
    const reset = new URL(
      linkIn(await t.mail.waitFor(user.email, { count: 2 }), `${app}/reset-password?token=`),
    ).searchParams.get('token')!;
    const owner = await t.signIn(await t.createUser());
    await elevate(owner);
    const moved = `moved-${randomBytes(4).toString('hex')}@example.org`;
    expect((await owner.post('/account/email', { email: moved })).status).toBe(200);
    const email = tokenAfter(await t.mail.waitFor(moved, { count: 1 }), '/account/email/verify/');
    const created = await owner.post('/organizations', { name: 'Logged' });
    expect(created.status, created.text).toBe(201);
    const invited = `invited-${randomBytes(4).toString('hex')}@example.org`;
    const invitation = await owner.post(`/organizations/${created.body.data.organization.id}/invitations`, {
      email: invited,
      role: 'member',
    });
    expect(invitation.status, invitation.text).toBe(201);
    const invite = tokenAfter(
      await t.mail.waitFor(invited, { count: 1 }),
      '/organizations/invitations/links/',
    );

    const unknown = secret();
    const sig = secret();
    const tokens = [magic, reset, email, invite, unknown, sig];
    const paths = [
      '/magic-link/verify/',
      '/account/email/verify/',
      '/organizations/invitations/links/',
      // Where invitation links pointed before: still served.
      '/organizations/invitations/',
      '/reset-password/',
      '/invitations/',
    ];
    const urls: string[] = [];
    for (const path of paths) {
      for (const token of [magic, reset, email, invite, unknown]) {
        urls.push(
          `${path}${encodeURIComponent(token)}`,
          `${path}${encodeURIComponent(token)}/`,
          `${path}${encodeURIComponent(token)}/accept?from=mail`,
          // Malformed: a broken escape, an extra segment, doubled slashes, another case, a long one.
          `${path}${token}%zz`,
          `${path}${token}/x/y`,
          // A query name only a plugin's route declares secret, on a path no route answers.
          `${path}${token}/x/y?sig=${sig}`,
          `/${path.replace(/\//g, '//')}${token}`,
          `${path.toUpperCase()}${token}`,
          `${path}${token}${'a'.repeat(300)}`,
        );
      }
    }
    urls.push(`/reset-password?token=${reset}`, `/magic-link/verify?token=${magic}`);
    const statuses = new Set<number>();
    for (const url of urls) {
      for (const accept of ['application/json', 'text/html']) {
        const response = await t.app.inject({ method: 'GET', url, headers: { accept } });
        expect(response.statusCode, url).toBeLessThan(500);
        statuses.add(response.statusCode);
      }
    }
    // The posts that carry a token in the body or path, too.
    for (const token of tokens)
      await t.app.inject({
        method: 'POST',
        url: `/account/email/verify/${token}`,
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        payload: JSON.stringify({ token }),
      });
    // 200 (a valid link's page), 404 (unknown, or no such route) and a 4xx of the router were all seen.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400, 404]));
    const log = lines.join('\n');
    expect(log).toContain('"url":"/reset-password/[redacted]"');
    for (const [index, token] of tokens.entries()) {
      expect(log, `token ${index}`).not.toContain(token);
      expect(log, `token ${index}`).not.toContain(encodeURIComponent(token));
      expect(log.toLowerCase(), `token ${index}`).not.toContain(token.toLowerCase().slice(0, 24));
    }
  });

  it("a plugin's route declares its own secrets: path and query, by its own names", async () => {
    lines.length = 0;
    const invite = secret();
    const sig = secret();
    const response = await t.app.inject({
      method: 'GET',
      url: `/invitations/${invite}/accept?sig=${sig}&from=newsletter`,
      headers: { accept: 'application/json' },
    });
    expect(response.json().data).toEqual({ from: 'newsletter' });
    const log = lines.join('\n');
    expect(log).not.toContain(invite);
    expect(log).not.toContain(sig);
    expect(log).toContain('"url":"/invitations/[redacted]/accept?sig=%5Bredacted%5D&from=newsletter"');
  });

  it("trace-level lines of a multipart body do not hold the request's cookie", async () => {
    lines.length = 0;
    // A signed-in session: its cookie is what the multipart parser's trace line carried.
    const member = await t.signIn(await t.createUser());
    const cookie = `citadel_session=${member.cookie('citadel_session')!}`;
    await t.app.inject({
      method: 'POST',
      url: '/forgot-password',
      headers: {
        'content-type': 'multipart/form-data; boundary=b',
        cookie,
        'x-csrf-token': await member.csrfToken(),
        accept: 'application/json',
      },
      payload: '--b\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.example\r\n--b--\r\n',
    });
    const log = lines.join('\n');
    // The multipart parser's own trace line ran (so the check below looked at it).
    expect(log).toContain('Providing options to busboy');
    expect(log).not.toContain(member.cookie('citadel_session')!);
  });
});

describe('redactUrl: laying the pattern over the path', () => {
  it('redacts declared path parameters wherever they sit, and falls back to the pattern', () => {
    expect(redactUrl('/a/X/b/Y', '/a/:one/b/:two', ['two'])).toBe('/a/X/b/[redacted]');
    expect(redactUrl('/a/X-Y', '/a/:one-:two', ['two'])).toBe('/a/[redacted]');
    expect(redactUrl('/files/a/b/c', '/files/*', ['*'])).toBe('/files/[redacted]');
    expect(redactUrl('/files/a/b', '/files/*', [])).toBe('/files/a/b');
    // A path that does not line up with its pattern is logged as the pattern.
    expect(redactUrl('/x/SECRET/extra/more', '/a/:token', ['token'])).toBe('/a/:token');
    // Query names: declared ones (any case, bracketed) and the default second line.
    expect(redactUrl('/p?Sig=1&sig[a]=2&x=3', '/p', ['sig'])).toBe(
      '/p?Sig=%5Bredacted%5D&sig%5Ba%5D=%5Bredacted%5D&x=3',
    );
    expect(redactUrl('/p?access_token=1&refresh_token=2', undefined, [])).toBe(
      '/p?access_token=%5Bredacted%5D&refresh_token=%5Bredacted%5D',
    );
  });
});

describe('SecretPaths: the prefixes the declarations give', () => {
  it('cuts a path after the static part before the first parameter of a declaring route', () => {
    const paths = new SecretPaths();
    paths.add('/magic-link/verify/:token', ['token']);
    paths.add('/reset-password', ['token']);
    paths.add('/tokens/:id', undefined);
    expect(paths.redact('/magic-link/verify/abc/def')).toBe('/magic-link/verify/[redacted]');
    expect(paths.redact('//Magic-Link//verify/abc')).toBe('/magic-link/verify/[redacted]');
    expect(paths.redact('/magic-link%2Fverify%2Fabc')).toBe('/magic-link/verify/[redacted]');
    expect(paths.redact('/reset-password/abc%zz')).toBe('/reset-password/[redacted]');
    expect(paths.redact('/reset-password')).toBeNull();
    expect(paths.redact('/magic-link/verify/')).toBeNull();
    expect(paths.redact('/tokens/12')).toBeNull();
  });
});
