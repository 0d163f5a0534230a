// Dialect-independent: pure redirect URI, client metadata and secret checks; `npm test` runs it with the first database only.
/**
 * Redirect URIs: what may be registered (absolute https; for native apps http on the loopback
 * interface or a private-use scheme; never a fragment, a wildcard or user info) and what a request
 * may name (the exact string; for a native client a registered loopback URI with any port).
 * Client metadata as RFC 7591 names it, and the secret check.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  redirectUriMatches,
  redirectUriProblem,
  verifyClientSecret,
} from '../../../src/auth/oauth-provider/clients.ts';
import { parseClientMetadata } from '../../../src/auth/oauth-provider/client-metadata.ts';

describe('redirect URIs that may be registered', () => {
  it.each([
    ['https://app.example.com/callback', 'web'],
    ['https://app.example.com/cb?tenant=1', 'web'],
    ['https://app.example.com/callback', 'native'],
    ['http://127.0.0.1/callback', 'native'],
    ['http://127.0.0.1:8123/callback', 'native'],
    ['http://[::1]/callback', 'native'],
    ['http://localhost:3000/callback', 'native'],
    ['com.example.app:/oauth2redirect', 'native'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'native'],
  ] as const)('%s (%s) is accepted', (uri, type) => {
    expect(redirectUriProblem(uri, type)).toBeNull();
  });

  it.each([
    ['http://app.example.com/callback', 'web', /https/],
    ['http://127.0.0.1/callback', 'web', /https/],
    ['http://app.example.com/callback', 'native', /native/],
    ['https://app.example.com/callback#frag', 'web', /fragment/],
    ['https://app.example.com/callback#', 'web', /fragment/],
    ['https://*.example.com/callback', 'web', /wildcard|absolute/],
    ['https://app.example.com/*', 'web', /wildcard/],
    ['https://user:pw@app.example.com/cb', 'web', /user name/],
    ['/callback', 'web', /absolute/],
    ['app.example.com/callback', 'web', /absolute/],
    ['https://app.example.com/call back', 'web', /spaces/],
    ['javascript:alert(1)', 'web', /https/],
    ['javascript:alert(1)', 'native', /native/],
    ['data:text/html,hi', 'native', /native/],
    ['file:///etc/passwd', 'native', /native/],
    ['ws://127.0.0.1/cb', 'native', /native/],
    ['myapp:/callback', 'web', /https/],
    [`https://app.example.com/${'a'.repeat(2000)}`, 'web', /characters/],
  ] as const)('%s (%s) is refused', (uri, type, why) => {
    expect(redirectUriProblem(uri, type)).toMatch(why);
  });
});

describe('redirect URI matching', () => {
  const web = { application_type: 'web' as const, redirect_uris: ['https://app.example.com/callback'] };
  const native = {
    application_type: 'native' as const,
    redirect_uris: ['http://127.0.0.1/callback', 'http://localhost:7777/cb?x=1', 'com.example.app:/cb'],
  };

  it('a web client: the exact string only', () => {
    expect(redirectUriMatches(web, 'https://app.example.com/callback')).toBe(true);
    for (const near of [
      'https://app.example.com/callback/',
      'https://app.example.com/Callback',
      'https://APP.example.com/callback',
      'https://app.example.com:443/callback',
      'https://app.example.com/callback?x=1',
      'https://app.example.com/callback#x',
      'https://app.example.com/x/../callback',
      'https://app.example.com.evil.com/callback',
      'http://app.example.com/callback',
    ])
      expect(redirectUriMatches(web, near), near).toBe(false);
  });

  it('a native client: a registered loopback URI with any port (RFC 8252), nothing else different', () => {
    expect(redirectUriMatches(native, 'http://127.0.0.1/callback')).toBe(true);
    expect(redirectUriMatches(native, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches(native, 'http://127.0.0.1:1/callback')).toBe(true);
    expect(redirectUriMatches(native, 'http://localhost:40000/cb?x=1')).toBe(true);
    expect(redirectUriMatches(native, 'com.example.app:/cb')).toBe(true);
    for (const near of [
      'http://127.0.0.1:51234/callback/',
      'http://127.0.0.1:51234/other',
      'http://127.0.0.1:51234/x/../callback',
      'http://127.0.0.1:51234/%63allback',
      'http://127.0.0.1:51234/callback?x=1',
      'http://127.0.0.1:51234/callback#f',
      'http://localhost:51234/callback',
      'http://[::1]:51234/callback',
      'https://127.0.0.1:51234/callback',
      'http://user@127.0.0.1:51234/callback',
      'http://localhost:40000/cb',
      'http://127.0.0.2:51234/callback',
      'com.example.app:/cb2',
    ])
      expect(redirectUriMatches(native, near), near).toBe(false);
  });

  it('the port rule is for native clients only', () => {
    const webLoopback = { application_type: 'web' as const, redirect_uris: ['http://127.0.0.1/callback'] };
    expect(redirectUriMatches(webLoopback, 'http://127.0.0.1:5000/callback')).toBe(false);
  });
});

describe('client secrets', () => {
  const secret = 'k3Q2yC9nYz0V1n1bq7y8n2L0wYlq2d3F4g5h6j7k8l9';
  const hash = createHash('sha256').update(secret).digest('hex');

  it('the secret matches its SHA-256; anything else does not; a public client never matches', () => {
    expect(verifyClientSecret({ client_secret_hash: hash }, secret)).toBe(true);
    expect(verifyClientSecret({ client_secret_hash: hash }, `${secret}x`)).toBe(false);
    expect(verifyClientSecret({ client_secret_hash: hash }, secret.slice(0, -1))).toBe(false);
    expect(verifyClientSecret({ client_secret_hash: hash }, hash)).toBe(false);
    expect(verifyClientSecret({ client_secret_hash: hash }, '')).toBe(false);
    expect(verifyClientSecret({ client_secret_hash: null }, '')).toBe(false);
    expect(verifyClientSecret({ client_secret_hash: null }, secret)).toBe(false);
  });
});

describe('client metadata (RFC 7591 names)', () => {
  const admin = { registration: 'admin' as const, resourceScopes: ['posts:read', 'posts:create'] };
  const dynamic = { ...admin, registration: 'dynamic' as const, defaultScopes: ['openid', 'posts:read'] };
  const base = {
    client_name: 'App',
    redirect_uris: ['https://app.example.com/cb'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid posts:read',
  };

  it('defaults: a web client, RS256, client_secret_basic', () => {
    const parsed = parseClientMetadata({ ...base, token_endpoint_auth_method: undefined }, admin);
    expect(parsed).toEqual({
      ok: true,
      client: {
        client_name: 'App',
        redirect_uris: ['https://app.example.com/cb'],
        post_logout_redirect_uris: [],
        application_type: 'web',
        token_endpoint_auth_method: 'client_secret_basic',
        scope: ['openid', 'posts:read'],
        id_token_signed_response_alg: 'RS256',
        registration: 'admin',
      },
    });
  });

  it.each([
    [{ redirect_uris: [] }, 'invalid_redirect_uri', 'redirect_uris'],
    [{ redirect_uris: undefined }, 'invalid_redirect_uri', 'redirect_uris'],
    [{ redirect_uris: 'https://app.example.com/cb' }, 'invalid_redirect_uri', 'redirect_uris'],
    [{ redirect_uris: ['https://a.example.com/cb#x'] }, 'invalid_redirect_uri', 'redirect_uris'],
    [{ redirect_uris: [1] }, 'invalid_redirect_uri', 'redirect_uris'],
    [
      { post_logout_redirect_uris: ['http://a.example.com/'] },
      'invalid_client_metadata',
      'post_logout_redirect_uris',
    ],
    [{ scope: '*' }, 'invalid_client_metadata', 'scope'],
    [{ scope: 'openid posts:*' }, 'invalid_client_metadata', 'scope'],
    [{ scope: 'openid posts:delete' }, 'invalid_client_metadata', 'scope'],
    [{ scope: 'openid admin' }, 'invalid_client_metadata', 'scope'],
    [{ scope: undefined }, 'invalid_client_metadata', 'scope'],
    [{ scope: ['openid'] }, 'invalid_client_metadata', 'scope'],
    [{ client_name: undefined }, 'invalid_client_metadata', 'client_name'],
    [{ client_name: 'a'.repeat(201) }, 'invalid_client_metadata', 'client_name'],
    [{ client_name: 'App\u0007' }, 'invalid_client_metadata', 'client_name'],
    [{ application_type: 'desktop' }, 'invalid_client_metadata', 'application_type'],
    [
      { token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
      'token_endpoint_auth_method',
    ],
    [{ id_token_signed_response_alg: 'none' }, 'invalid_client_metadata', 'id_token_signed_response_alg'],
    [{ id_token_signed_response_alg: 'HS256' }, 'invalid_client_metadata', 'id_token_signed_response_alg'],
    [{ response_types: ['token'] }, 'invalid_client_metadata', 'response_types'],
    [{ grant_types: ['implicit'] }, 'invalid_client_metadata', 'grant_types'],
    [{ grant_types: ['password'] }, 'invalid_client_metadata', 'grant_types'],
  ])('%j is refused with %s', (change, error, field) => {
    const parsed = parseClientMetadata({ ...base, ...change }, admin);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatchObject({ error, field });
  });

  it('a public client may not use client_credentials', () => {
    const parsed = parseClientMetadata(
      { ...base, token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
      admin,
    );
    expect(parsed).toMatchObject({ ok: false, error: { field: 'grant_types' } });
  });

  it('dynamic registration: omitted scope gets the defaults, a secret method becomes none, no name is the host', () => {
    const parsed = parseClientMetadata(
      {
        redirect_uris: ['http://127.0.0.1:4567/callback'],
        application_type: 'native',
        token_endpoint_auth_method: 'client_secret_post',
      },
      dynamic,
    );
    expect(parsed).toMatchObject({
      ok: true,
      client: {
        client_name: '127.0.0.1:4567',
        scope: ['openid', 'posts:read'],
        token_endpoint_auth_method: 'none',
        registration: 'dynamic',
      },
    });
  });

  it('no application_type: native when every redirect URI reaches only the device (loopback, app scheme)', () => {
    const type = (uris: string[]) => {
      const parsed = parseClientMetadata({ ...base, redirect_uris: uris }, admin);
      return parsed.ok ? parsed.client.application_type : parsed.error.field;
    };
    expect(type(['http://localhost:6274/oauth/callback'])).toBe('native');
    expect(type(['http://127.0.0.1:33418/', 'cursor://anysphere.cursor-mcp/oauth/callback'])).toBe('native');
    expect(type(['https://app.example.com/cb'])).toBe('web');
    expect(type(['https://app.example.com/cb', 'http://127.0.0.1/cb'])).toBe('redirect_uris');
    const explicitWeb = parseClientMetadata(
      { ...base, application_type: 'web', redirect_uris: ['http://127.0.0.1/cb'] },
      admin,
    );
    expect(explicitWeb).toMatchObject({ ok: false, error: { error: 'invalid_redirect_uri' } });
  });

  it('not an object', () => {
    for (const body of [null, [], 'x', 3])
      expect(parseClientMetadata(body, admin)).toMatchObject({
        ok: false,
        error: { error: 'invalid_client_metadata' },
      });
  });
});
