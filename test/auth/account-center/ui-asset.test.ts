import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

describe("the account pages' script", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('GET /assets/ui.js: the script itself, as JavaScript, cached five minutes', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/assets/ui.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    const script = readFileSync(
      new URL('../../../src/auth/account-center/assets/ui.js', import.meta.url),
      'utf8',
    );
    expect(response.body).toBe(script);
  });
});
