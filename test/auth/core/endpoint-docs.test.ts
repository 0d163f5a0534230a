/**
 * Contract section 15: `GET /docs` is the OpenAPI document of the auth endpoints, built from their
 * declarations; `/docs/ui` its interactive page. 3.0.3 by default, 3.1.0 on request, lint-clean.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { lintOpenApi } from '../../support/redocly.ts';
import { blogPlugins } from '../../../examples/blog/citadel.config.ts';

describe('the auth OpenAPI document (GET /docs)', () => {
  let t: TestApp;
  let t31: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // The demo's plugins: `citadel openapi --auth` below prints the demo's document.
    t31 = await startTestApp({ openapi: '3.1', plugins: blogPlugins });
  });
  afterAll(async () => {
    await t?.close();
    await t31?.close();
  });

  it(
    'is 3.0.3 by default, lists every declared endpoint, and passes the lint',
    { timeout: 60_000 },
    async () => {
      const response = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(response.statusCode).toBe(200);
      const document = response.json();
      expect(document.openapi).toBe('3.0.3');
      const declared = t.services.authEndpoints;
      expect(declared.length).toBeGreaterThan(10);
      for (const endpoint of declared) {
        const path = endpoint.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        expect(
          document.paths[path]?.[endpoint.method.toLowerCase()],
          `${endpoint.method} ${path}`,
        ).toMatchObject({
          'x-action': endpoint.action,
        });
      }
      // What a client needs: the body's fields, who may call, the answers.
      const create = document.paths['/tokens'].post;
      expect(create.requestBody.content['application/json'].schema.required).toEqual(['name']);
      expect(create.security).toEqual([{ session: [] }, { bearer: [] }]);
      expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '422']));
      expect(document.paths['/reset-password'].get.parameters).toEqual([
        expect.objectContaining({ name: 'token', in: 'query', description: 'A secret: never logged.' }),
      ]);
      const lint = await lintOpenApi(document);
      expect(lint.problems).toEqual([]);
    },
  );

  it("is 3.1.0 with `openapi: '3.1'`, also lint-clean", { timeout: 60_000 }, async () => {
    const document = (await t31.app.inject({ method: 'GET', url: '/docs' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect((await lintOpenApi(document)).problems).toEqual([]);
  });

  it('serves the interactive page and its assets from this process', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/ui' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-url="/docs"');
    const asset = await t.app.inject({ method: 'GET', url: '/docs/ui/assets/swagger-ui-bundle.js' });
    expect(asset.statusCode).toBe(200);
    // A file that is not one of the assets is not found (not a 405 for a path the GET route covers).
    for (const url of ['/docs/ui/assets/nope.js', '/api/v1/docs/ui/assets/nope.js']) {
      const unknown = await t.app.inject({ method: 'GET', url });
      expect(unknown.statusCode, url).toBe(404);
    }
  });

  it('`citadel openapi --auth` prints the same paths as GET /docs', { timeout: 60_000 }, async () => {
    const root = resolve(import.meta.dirname, '../../..');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [resolve(root, 'bin/citadel.mjs'), 'openapi', '--auth', '--openapi', '3.1'],
      { cwd: root, env: { ...process.env, SESSION_SECRET: 'a-secret-for-the-cli-that-is-long-enough-0123' } },
    );
    const printed = JSON.parse(stdout);
    const served = (await t31.app.inject({ method: 'GET', url: '/docs' })).json();
    expect(printed.openapi).toBe('3.1.0');
    expect(printed.paths).toEqual(served.paths);
  });
});
