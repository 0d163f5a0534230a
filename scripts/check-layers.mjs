#!/usr/bin/env node
// `npm run check:layers`: dependencies point one way, down the layers of src/.
// Rule 1 (layers): a file imports (even a type) only from its own layer or a lower one; the folders
// of an independent layer (the capabilities) import nothing from each other. A file of src/ in no
// layer fails too, so a new folder gets a place before it gets imports.
// Rule 2 (the plugin contract): a file of a capability under src/auth (every folder but core)
// imports, of src/, only its own folder and src/plugin-api.ts (`citadel/plugin`): a third-party
// plugin can do whatever a built-in does. Type imports, `import()` and `declare module` count.
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

// Lowest first. A path is a folder of src/, a file (`*.ts`), `auth/*/` (each folder of src/auth
// left, one unit per folder) or `auth/*.ts` (the files at the root of src/auth).
const LAYERS = [
  { name: 'core', paths: ['core'], why: 'clock, crypto, errors, the html template: nothing below it' },
  { name: 'db', paths: ['db'], why: 'opening and migrating a database needs only the core' },
  {
    name: 'mail',
    paths: ['mail'],
    why: 'mailer and templates render with core/html; the HTTP services hold a mailer, so mail sits below http',
  },
  {
    name: 'config',
    paths: ['config'],
    why: 'the configuration names a database URL, migrations and mail templates',
  },
  {
    name: 'http',
    paths: ['http'],
    why: 'requests, responses, sessions, limits: built from the configuration',
  },
  { name: 'ops', paths: ['ops'], why: 'health, metrics, logging, shutdown of whatever server it is given' },
  { name: 'auth core', paths: ['auth/core'], why: 'what the capabilities share' },
  {
    name: 'plugin API',
    paths: ['plugin-api.ts'],
    why: 'citadel/plugin, all a plugin imports: it re-exports the core, db, mail, config, http and auth core',
  },
  {
    name: 'capabilities',
    paths: ['auth/*/', 'api'],
    independent: true,
    why: 'each built-in and the resource API stand on the core alone, never on each other',
  },
  {
    name: 'auth assembly',
    paths: ['auth/*.ts'],
    why: 'the built-in list and page registry name every capability',
  },
  {
    name: 'embed',
    paths: ['embed'],
    why: 'caller, Fetch and start-up helpers the server and a host app share',
  },
  { name: 'app', paths: ['app'], why: 'the composition root: every layer below assembled into a server' },
  {
    name: 'entry',
    paths: ['index.ts', 'fastify.ts', 'html.ts', 'migrations.ts', 'testing.ts', 'cli.ts', 'client'],
    why: 'the package entry modules and the typed client (which imports the server as types only)',
  },
];
// Upward imports owed to work in progress, each named: `from → to` (units, see placeOf).
const PENDING = new Map([]);
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
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const line = text.slice(0, match.index).split('\n').length;
      yield { file, line, spec: match[1], target: resolve(dirname(file), match[1]) };
    }
  }
}

/** The layer of a path under src/ and its unit (the folder or file the layer lists it by). */
function placeOf(path) {
  const parts = relative(SRC, path).split('/');
  for (const [rank, layer] of LAYERS.entries()) {
    for (const pattern of layer.paths) {
      const unit = unitOf(pattern, parts);
      if (unit) return { rank, layer, unit };
    }
  }
  return undefined;
}

function unitOf(pattern, parts) {
  const [first, rest] = pattern.split('/');
  if (parts[0] !== first) return undefined;
  if (rest === '*') return parts.length > 2 ? `${first}/${parts[1]}` : undefined;
  if (rest === '*.ts') return parts.length === 2 ? `${first}/*.ts` : undefined;
  if (rest !== undefined) return parts[1] === rest && parts.length > 2 ? pattern : undefined;
  if (first.endsWith('.ts')) return parts.length === 1 ? first : undefined;
  return parts.length > 1 ? first : undefined;
}

let failed = false;

// Rule 1: the layers.
const unplaced = [];
const layerViolations = [];
const pendingSeen = new Map();
for (const { file, line, spec, target } of imports(SRC)) {
  const from = placeOf(file);
  if (!from) {
    if (!unplaced.includes(file)) unplaced.push(file);
    continue;
  }
  if (relative(SRC, target).startsWith('..')) continue; // outside src/
  const to = placeOf(target);
  if (!to || from.unit === to.unit) continue; // an unplaced target is reported as a file
  const upward = to.rank > from.rank;
  const sideways = to.rank === from.rank && from.layer.independent;
  if (!upward && !sideways) continue;
  const edge = `${from.unit} → ${to.unit}`;
  if (upward && PENDING.has(edge)) {
    pendingSeen.set(edge, (pendingSeen.get(edge) ?? 0) + 1);
    continue;
  }
  layerViolations.push(
    `src/${relative(SRC, file)}:${line} imports ${spec}: ` +
      (upward
        ? `${from.layer.name} (layer ${from.rank + 1}) → ${to.layer.name} (layer ${to.rank + 1}), a higher layer`
        : `${from.unit} → ${to.unit}, two units of the independent layer ${from.layer.name}`),
  );
}
for (const file of files(SRC)) if (!placeOf(file) && !unplaced.includes(file)) unplaced.push(file);
console.log(
  `check-layers: ${LAYERS.length} layers (${LAYERS.map((layer) => layer.name).join(' < ')}), ` +
    `${layerViolations.length} import(s) from a lower layer into a higher one or between capabilities`,
);
for (const [edge, reason] of PENDING) {
  const count = pendingSeen.get(edge) ?? 0;
  console.log(`check-layers: allowed while pending: ${edge} (${count} import(s)): ${reason}`);
}
if (layerViolations.length > 0) {
  failed = true;
  console.error('a file imports only its own layer or lower ones, and a capability no other capability:');
  for (const line of layerViolations) console.error(`  ${line}`);
  console.error('the layers, lowest first:');
  for (const [rank, layer] of LAYERS.entries())
    console.error(`  ${rank + 1}. ${layer.name} (src/${layer.paths.join(', src/')}): ${layer.why}`);
}
if (unplaced.length > 0) {
  failed = true;
  console.error('files of src/ in no layer (give them one in LAYERS, scripts/check-layers.mjs):');
  for (const file of unplaced) console.error(`  src/${relative(SRC, file)}`);
}

// Rule 2: the plugin contract.
const PLUGIN_API = join(SRC, 'plugin-api.ts');
const contractViolations = [];
let capabilityImports = 0;
for (const { file, line, spec, target } of imports(AUTH)) {
  const [capability] = relative(AUTH, file).split('/');
  if (capability === 'core' || !relative(AUTH, file).includes('/')) continue; // the auth core, src/auth/*.ts
  capabilityImports++;
  const own = join(AUTH, capability);
  if (target === PLUGIN_API || !relative(own, target).startsWith('..')) continue;
  contractViolations.push(
    `src/${relative(SRC, file)}:${line} imports ${spec} (src/${relative(SRC, target)})`,
  );
}
console.log(
  `check-layers: ${capabilityImports} relative import(s) in the capabilities of src/auth, ` +
    `${contractViolations.length} outside their own folder and src/plugin-api.ts`,
);
if (contractViolations.length > 0) {
  failed = true;
  console.error(
    'a capability of src/auth imports only its own folder and src/plugin-api.ts (citadel/plugin), so that a ' +
      'third-party plugin can do what a built-in does; import the name from plugin-api.ts (export it there if new):',
  );
  for (const line of contractViolations) console.error(`  ${line}`);
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
