/**
 * JSON resources answer JSON for any Accept, never a page or a redirect: the JWK Set, the typed
 * client's route list, the auth OpenAPI document and each API version's OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import { defineEndpoint, definePlugin, Envelope } from '../../src/index.ts';

/** A plugin's own well-known document, declared without saying anything about Accept. */
const discovery = definePlugin({
  id: 'discovery-test',
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/.well-known/example-configuration',
      action: 'example.configuration',
      auth: 'anonymous',
      responses: { 200: Envelope({ fields: { issuer: Type.String() } }) },
      async handler() {
        return { status: 'success', fields: { issuer: 'http://localhost:3000' } };
      },
    }),
  ],
});

const RESOURCES = [
  '/.well-known/jwks.json',
  '/.well-known/example-configuration',
  '/endpoints',
  '/docs',
  '/api/v1/docs',
  '/api/v2/docs',
];
const ACCEPTS = [
  undefined,
  '*/*',
  'application/jwk-set+json',
  'text/html',
  'application/json',
  'text/html,*/*;q=0.8',
];

describe('JSON resources answer JSON for any Accept', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp({ plugins: [...blogPlugins, discovery] });
  });
  afterAll(async () => t?.close());

  it('200 JSON, no redirect, whatever the Accept', async () => {
    for (const url of RESOURCES) {
      for (const accept of ACCEPTS) {
        const response = await t.app.inject({ method: 'GET', url, headers: accept ? { accept } : {} });
        const where = `${url} Accept: ${accept ?? '(none)'}`;
        expect(response.statusCode, `${where}: ${response.body.slice(0, 200)}`).toBe(200);
        expect(response.headers.location, where).toBeUndefined();
        expect(response.headers['content-type'], where).toMatch(/^application\/json/);
        const body = JSON.parse(response.body) as Record<string, unknown>;
        if (url.endsWith('jwks.json')) expect(Array.isArray(body.keys), where).toBe(true);
        if (url === '/endpoints') expect(body).toMatchObject({ status: 'success', data: { api: '/api' } });
        if (url.includes('docs')) expect(body.openapi, where).toMatch(/^3\./);
      }
    }
  });

  it('the same with a session cookie (a browser that is signed in)', async () => {
    const session = await t.signIn(await t.createUser());
    for (const url of ['/.well-known/jwks.json', '/endpoints']) {
      const response = await session.get(url, 'form');
      expect(response.status, url).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    }
  });
});
