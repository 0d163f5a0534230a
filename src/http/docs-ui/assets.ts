import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files the docs page loads: Swagger UI's (Apache-2.0) plus our own initialiser (the CSP allows
 * no inline script). The installed package carries a pinned copy of the Swagger UI files it needs
 * in `swagger-ui/` beside this module (copied from the `swagger-ui-dist` devDependency by
 * scripts/build.mjs, with its LICENSE and NOTICE), so a consumer installs no `swagger-ui-dist` and
 * no install script of its; a checkout of the repository reads them from the devDependency.
 * A fixed list: nothing else in that folder is reachable, whatever the request path says.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const VENDORED = join(HERE, 'swagger-ui');
const DIST = existsSync(VENDORED)
  ? VENDORED
  : dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export const ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui.css': { path: join(DIST, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': {
    path: join(DIST, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'favicon-32x32.png': { path: join(DIST, 'favicon-32x32.png'), type: 'image/png' },
  'favicon-16x16.png': { path: join(DIST, 'favicon-16x16.png'), type: 'image/png' },
  'docs-theme.css': { path: join(HERE, 'browser', 'docs-theme.css'), type: 'text/css; charset=utf-8' },
  'docs-init.js': { path: join(HERE, 'browser', 'docs-init.js'), type: 'text/javascript; charset=utf-8' },
};

const loaded = new Map<string, Promise<Buffer>>();

/** The bytes of one listed asset, read once per process. */
export function loadAsset(name: string): Promise<Buffer> | undefined {
  const asset = ASSETS[name];
  if (!asset) return undefined;
  let bytes = loaded.get(name);
  if (!bytes) {
    bytes = readFile(asset.path);
    // A failed read is retried on the next request rather than cached.
    bytes.catch(() => loaded.delete(name));
    loaded.set(name, bytes);
  }
  return bytes;
}
