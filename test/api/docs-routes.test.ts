// Dialect-independent: documentation routes; `npm test` runs it with the first database only.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ApiConfig } from '../../src/api/resource/types.ts';
import { apiDocs } from '../../src/api/docs/plugin.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';

const require = createRequire(import.meta.url);

/** A small API of our own: the docs routes need no database, only the configuration. */
const api: ApiConfig = {
  apiName: 'Docs <Test> API',
  apiBaseUrl: '/api',
  resources: [
    {
      name: 'widgets',
      columns: { id: { type: 'integer', readOnly: true }, label: { type: 'string' } },
      obfuscatedFields: ['id'],
      formClass: { post: Type.Object({ label: Type.String() }) },
    },
    { name: 'gadgets', version: 'v2', columns: { id: { type: 'integer' }, size: { type: 'number' } } },
  ],
  publications: [
    { version: 'v1', docs: { route: 'docs', uiRoute: 'docs/ui' } },
    { version: 'v2', docs: { route: 'openapi.json', uiRoute: 'explorer' } },
  ],
};

describe('apiDocs routes', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    await app.register(apiDocs, { api });
    await app.ready();
  });
  afterAll(async () => app.close());

  it('serves each version its own document at its docs.route', async () => {
    const v1 = await app.inject({ method: 'GET', url: '/api/v1/docs' });
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(v1.json()).toEqual(buildOpenApiDocument(api, 'v1'));
    expect(Object.keys(v1.json().paths)).toEqual(['/widgets', '/widgets/{id}']);
    const v2 = await app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    expect(v2.statusCode).toBe(200);
    expect(Object.keys(v2.json().paths).sort()).toEqual([
      '/gadgets',
      '/gadgets/{id}',
      '/widgets',
      '/widgets/{id}',
    ]);
    expect(v2.json().servers).toEqual([{ url: '/api/v2' }]);
    // Routes follow the publication's options, not the defaults.
    expect((await app.inject({ method: 'GET', url: '/api/v2/docs' })).statusCode).toBe(404);
  });

  it('serves the UI page pointing at that version, with local assets and no inline script', async () => {
    const page = await app.inject({ method: 'GET', url: '/api/v2/explorer' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const body = page.body;
    expect(body).toContain('data-url="/api/v2/openapi.json"');
    expect(body).toContain('<title>Docs &lt;Test&gt; API v2: API documentation</title>');
    const scripts = [...body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[1]!.trim())).toEqual([
      'src="/api/v2/explorer/assets/swagger-ui-bundle.js"',
      'src="/api/v2/explorer/assets/docs-init.js"',
    ]);
    expect(scripts.every((m) => m[2]!.trim() === '')).toBe(true);
    // Every URL in the page is a path on this server.
    for (const [, url] of body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^\/api\/v2\//);
  });

  it('serves the swagger-ui-dist files from the installed package', async () => {
    const dist = require.resolve('swagger-ui-dist/swagger-ui-bundle.js');
    const bundle = await app.inject({ method: 'GET', url: '/api/v1/docs/ui/assets/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.rawPayload.equals(await readFile(dist))).toBe(true);
    const css = await app.inject({ method: 'GET', url: '/api/v1/docs/ui/assets/swagger-ui.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const init = await app.inject({ method: 'GET', url: '/api/v1/docs/ui/assets/docs-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('validatorUrl: null');
    const theme = await app.inject({ method: 'GET', url: '/api/v1/docs/ui/assets/docs-theme.css' });
    expect(theme.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(theme.body).toContain('system-ui');
  });

  it('serves nothing but the listed assets', async () => {
    for (const file of [
      'package.json',
      'index.html',
      'swagger-initializer.js',
      '..%2F..%2Fpackage.json',
      '%2E%2E%2Fplugin.ts',
      'toString',
      '__proto__',
      'hasOwnProperty',
    ]) {
      const response = await app.inject({ method: 'GET', url: `/api/v1/docs/ui/assets/${file}` });
      expect(response.statusCode, file).toBe(404);
    }
  });
});
