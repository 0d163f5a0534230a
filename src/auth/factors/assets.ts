import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginAsset } from '../../plugin-api.ts';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Browser scripts for passkeys, served from our origin (the CSP allows `script-src 'self'` only):
 * the @simplewebauthn/browser bundle and our small glue script.
 */
export function passkeyAssets(): PluginAsset[] {
  const script = (path: string, read: () => string): PluginAsset => ({
    path,
    contentType: 'text/javascript; charset=utf-8',
    read,
  });
  return [
    script('/assets/simplewebauthn.js', () => {
      const browserEntry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
      return readFileSync(resolve(dirname(browserEntry), '../dist/bundle/index.umd.min.js'), 'utf8');
    }),
    script('/assets/passkeys.js', () => readFileSync(resolve(here, 'assets/passkeys.js'), 'utf8')),
    script('/assets/passkey-login.js', () => readFileSync(resolve(here, 'assets/passkey-login.js'), 'utf8')),
  ];
}
