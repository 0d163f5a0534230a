#!/usr/bin/env node
// `npm run check:layers`: dependencies point one way, from the capabilities down to the core.
// Fails when a file of a core folder imports (even a type) from src/auth or src/api.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');
const CORE_FOLDERS = ['core', 'config', 'db', 'http', 'mail'];
const CAPABILITY_FOLDERS = ['auth', 'api'];
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|declare module\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|js|mjs)$/.test(name)) yield path;
  }
}

const violations = [];
for (const folder of CORE_FOLDERS) {
  for (const file of files(join(SRC, folder))) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = relative(SRC, resolve(dirname(file), spec)).split('/')[0];
      if (CAPABILITY_FOLDERS.includes(target)) violations.push(`${relative(SRC, file)} imports ${spec}`);
    }
  }
}
if (violations.length > 0) {
  console.error(
    `core folders (${CORE_FOLDERS.join(', ')}) must not import from ${CAPABILITY_FOLDERS.join(' or ')}:`,
  );
  for (const line of violations) console.error(`  src/${line}`);
  process.exit(1);
}
console.log(
  `check-layers: src/{${CORE_FOLDERS.join(',')}} import nothing from src/{${CAPABILITY_FOLDERS.join(',')}}`,
);
