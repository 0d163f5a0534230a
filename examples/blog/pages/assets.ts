import { readFileSync } from 'node:fs';
import type { PluginAsset } from '../../../src/plugin-api.ts';

/** The blog's scripts: the front page's live updates (the CSP allows scripts of our origin only). */
export const blogAssets: readonly PluginAsset[] = [
  {
    path: '/assets/blog-live.js',
    contentType: 'text/javascript; charset=utf-8',
    read: () => readFileSync(new URL('./assets/live.js', import.meta.url), 'utf8'),
  },
];
