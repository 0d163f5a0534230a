import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files the docs page loads, from the installed `swagger-ui-dist` package plus our own
 * initialiser (the CSP allows no inline script). A fixed list: nothing else in the package folder
 * is reachable, whatever the request path says.
 */
const require = createRequire(import.meta.url);
const DIST = dirname(require.resolve('swagger-ui-dist/package.json'));
const HERE = dirname(fileURLToPath(import.meta.url));

export const ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui.css': { path: join(DIST, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': {
    path: join(DIST, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'favicon-32x32.png': { path: join(DIST, 'favicon-32x32.png'), type: 'image/png' },
  'favicon-16x16.png': { path: join(DIST, 'favicon-16x16.png'), type: 'image/png' },
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
