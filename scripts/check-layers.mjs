#!/usr/bin/env node
// `npm run check:layers`: dependencies point one way, from the capabilities down to the core.
// Rule 1: a file of a core folder imports (even a type) nothing from src/auth or src/api.
// Rule 2: a file of a capability folder under src/auth imports (even a type) nothing from another
// capability folder, nor the auth assembly files (src/auth/index.ts, src/auth/pages.ts); src/auth/core
// imports no capability folder and no assembly file; src/api imports from src/auth only src/auth/core.
// Rule 3 (domain code free of Fastify): no file under src/auth imports
// `fastify` or a `@fastify/*` / `fastify-*` package (even a type), except the HTTP adapter files:
// the route registration files (`routes.ts`, `*-routes.ts`, and `assets.ts`, a capability's static
// scripts). Among them src/auth/core/endpoint-routes.ts turns a Fastify request into the plain
// RequestContext domain code takes and commits what it changed, and src/auth/core/host-routes.ts
// registers the auth core's hook and every plugin's routes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');
const AUTH = join(SRC, 'auth');
const CORE_FOLDERS = ['core', 'config', 'db', 'http', 'mail'];
const CAPABILITY_FOLDERS = ['auth', 'api'];
// src/auth/core is what the capabilities share; the files at the root of src/auth assemble them
// (the default plugin list, the page registry) and are imported by the composition root (src/app)
// and the entry modules only.
const AUTH_CORE = 'core';
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|declare module\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|js|mjs)$/.test(name)) yield path;
  }
}

function* imports(dir) {
  for (const file of files(dir)) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      yield { file, spec, target: resolve(dirname(file), spec) };
    }
  }
}

let failed = false;

// Rule 1: the core folders of src/.
const coreViolations = [];
for (const folder of CORE_FOLDERS) {
  for (const { file, spec, target } of imports(join(SRC, folder))) {
    if (CAPABILITY_FOLDERS.includes(relative(SRC, target).split('/')[0]))
      coreViolations.push(`${relative(SRC, file)} imports ${spec}`);
  }
}
if (coreViolations.length > 0) {
  failed = true;
  console.error(
    `core folders (${CORE_FOLDERS.join(', ')}) must not import from ${CAPABILITY_FOLDERS.join(' or ')}:`,
  );
  for (const line of coreViolations) console.error(`  src/${line}`);
} else {
  console.log(
    `check-layers: src/{${CORE_FOLDERS.join(',')}} import nothing from src/{${CAPABILITY_FOLDERS.join(',')}}`,
  );
}

// Rule 2: the folders of src/auth.
const authFolders = readdirSync(AUTH).filter((name) => statSync(join(AUTH, name)).isDirectory());
const capabilities = authFolders.filter((name) => name !== AUTH_CORE);
const crossViolations = [];
for (const folder of authFolders) {
  for (const { file, spec, target } of imports(join(AUTH, folder))) {
    const path = relative(AUTH, target);
    if (path.startsWith('..')) continue; // outside src/auth: rule 1's business
    const parts = path.split('/');
    const assembly = parts.length === 1; // src/auth/index.ts, src/auth/pages.ts
    const other = parts.length > 1 && parts[0] !== folder && capabilities.includes(parts[0]);
    if (assembly || other) crossViolations.push(`${relative(SRC, file)} imports ${spec}`);
  }
}
for (const { file, spec, target } of imports(join(SRC, 'api'))) {
  const path = relative(AUTH, target);
  if (!path.startsWith('..') && path.split('/')[0] !== AUTH_CORE)
    crossViolations.push(`${relative(SRC, file)} imports ${spec}`);
}
console.log(
  `check-layers: ${crossViolations.length} import(s) from one folder of src/auth (${capabilities.join(', ')}, ${AUTH_CORE}) or src/api into another capability or the auth assembly files`,
);
if (crossViolations.length > 0) {
  failed = true;
  console.error(
    `a capability under src/auth imports only src/auth/${AUTH_CORE}, the core folders and the plugin API; src/auth/${AUTH_CORE} and src/api import no capability:`,
  );
  for (const line of crossViolations) console.error(`  src/${line}`);
}

// Rule 3: only the HTTP adapter files of src/auth import Fastify.
const FASTIFY_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|declare module\s+)['"]((?:fastify|@fastify\/[^'"]+|fastify-[^'"/]+)(?:\/[^'"]*)?)['"]/g;
const isAdapterFile = (name) => name === 'routes.ts' || name.endsWith('-routes.ts') || name === 'assets.ts';
const fastifyImporters = new Set();
const fastifyViolations = [];
for (const file of files(AUTH)) {
  const specs = [...readFileSync(file, 'utf8').matchAll(FASTIFY_IMPORT)].map(([, spec]) => spec);
  if (specs.length === 0) continue;
  fastifyImporters.add(relative(SRC, file));
  if (!isAdapterFile(file.split('/').pop()))
    fastifyViolations.push(`${relative(SRC, file)} imports ${specs.join(', ')}`);
}
console.log(
  `check-layers: ${fastifyImporters.size} file(s) under src/auth import Fastify, ${fastifyViolations.length} outside the HTTP adapter files (routes.ts, *-routes.ts, assets.ts)`,
);
if (fastifyViolations.length > 0) {
  failed = true;
  console.error(
    'domain code under src/auth takes plain data (RequestContext) and never imports Fastify; only the route registration files may:',
  );
  for (const line of fastifyViolations) console.error(`  src/${line}`);
}

if (failed) process.exit(1);
