#!/usr/bin/env node
// The `citadel` command. Installed from the package it runs the compiled code in dist/; in a
// checkout of the repository (src/ beside bin/) it runs the TypeScript sources through tsx, so the
// demo and the sources never disagree with a stale build.
import { existsSync } from 'node:fs';

process.env.CITADEL_CLI = '1';
const sources = new URL('../src/cli.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  process.env.CITADEL_TS_LOADER = '1';
  await import(sources.href);
} else {
  await import('../dist/cli.js');
}
