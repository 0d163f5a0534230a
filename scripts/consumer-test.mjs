#!/usr/bin/env node
// The consumer test (CI): pack the tarball, install it into a fresh project outside the repository
// (plain package.json with "type": "module", strict NodeNext tsconfig), type-check a program that
// names every export of every entry point with zero errors, then run it with plain `node`; check
// that nothing but the SQLite driver runs at install time, that Citadel with its driver installs
// under a size bound, and how the command line loads a TypeScript or JavaScript config file.
//
// Usage: node scripts/consumer-test.mjs [--keep]   (--keep leaves the temporary project in place)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const repo = resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
// The most that citadel and its SQLite driver may put in a consumer's node_modules (measured: 68 MB).
const INSTALLED_SIZE_LIMIT_MB = 80;
const ENTRY_POINTS = [
  'citadel',
  'citadel/fastify',
  'citadel/html',
  'citadel/migrations',
  'citadel/plugin',
  'citadel/testing',
  'citadel/client',
];
// Versions the consumer installs beside the tarball (the same pins as the repository's lock file).
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'));
const pinned = (name) => `${name}@${lock.packages[`node_modules/${name}`].version}`;

function run(command, args, cwd) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) {
    console.error(output);
    throw new Error(`${command} ${args[0]} exited with ${result.status}`);
  }
  return output;
}

const work = mkdtempSync(join(tmpdir(), 'citadel-consumer-'));
try {
  // 1. The tarball, exactly as `npm publish` would ship it.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: repo, encoding: 'utf8' }),
  );
  const tarball = join(work, packed[0].filename);
  const shipped = packed[0].files.map((f) => f.path);
  const unwanted = shipped.filter((p) => /^(test|bench|\.ci|scripts|src|examples)\//.test(p));
  if (unwanted.length) throw new Error(`the tarball ships files it should not: ${unwanted.join(', ')}`);
  console.log(`packed ${packed[0].filename}: ${shipped.length} files, ${packed[0].size} bytes`);

  // 2. A fresh project that depends on it.
  const app = join(work, 'app');
  cpSync(join(repo, 'test/consumer/project'), app, { recursive: true });
  const install = run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      tarball,
      pinned('better-sqlite3'),
      pinned('@sinclair/typebox'),
      pinned('typescript'),
      pinned('@types/node'),
    ],
    app,
  );
  const engineWarnings = install.split('\n').filter((line) => line.includes('EBADENGINE'));
  if (engineWarnings.length)
    throw new Error(`npm install printed engine warnings:\n${engineWarnings.join('\n')}`);

  // 3. A module that names every export of every entry point (values and types), generated from the
  //    installed declarations, so an export added later is covered without editing this test.
  writeFileSync(join(app, 'src/every-export.ts'), everyExportModule(app));

  // 4. Zero type errors under strict NodeNext, then plain node runs the compiled program.
  const typecheck = spawnSync('npx', ['tsc', '-p', '.'], { cwd: app, encoding: 'utf8' });
  if (typecheck.status !== 0) {
    console.error(typecheck.stdout, typecheck.stderr);
    throw new Error('tsc found errors in the consumer project');
  }
  console.log('tsc: 0 errors (strict, NodeNext)');
  const program = spawnSync('node', ['build/main.js'], { cwd: app, encoding: 'utf8', timeout: 120_000 });
  process.stdout.write(program.stdout);
  if (program.status !== 0) {
    process.stderr.write(program.stderr);
    throw new Error(`the consumer program exited with ${program.status}`);
  }
  // 5. Install weight: no install script but the SQLite driver's; Citadel with its driver under a bound.
  checkInstallScripts(app);
  checkInstalledSize(app);

  // 6. The config file: TypeScript where Node.js strips types, else a compiled .mjs/.js (no loader
  //    is installed with Citadel), and one line saying so when only a .ts is there.
  checkConfigLoading(app, work);
  console.log('consumer test passed');
} catch (error) {
  console.error(`\nCONSUMER TEST FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

/** Every installed package (nested ones too) as [folder, package.json]. */
function* installedPackages(dir) {
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (name.startsWith('@')) {
      yield* installedPackages(path);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) yield [path, JSON.parse(readFileSync(manifest, 'utf8'))];
    yield* installedPackages(join(path, 'node_modules'));
  }
}

/**
 * No package runs anything at install time except the SQLite driver (which builds or fetches its
 * binary): no telemetry postinstall, no loader or bundler binary.
 */
function checkInstallScripts(app) {
  const withScripts = [];
  for (const [path, manifest] of installedPackages(join(app, 'node_modules'))) {
    const scripts = manifest.scripts ?? {};
    // npm runs `node-gyp rebuild` for a binding.gyp without an install script of its own.
    const gyp = existsSync(join(path, 'binding.gyp'));
    if (scripts.preinstall || scripts.install || scripts.postinstall || gyp) withScripts.push(manifest.name);
  }
  const unexpected = withScripts.filter((name) => name !== 'better-sqlite3');
  if (unexpected.length) throw new Error(`packages with install scripts: ${unexpected.join(', ')}`);
  for (const name of ['tsx', 'esbuild', 'swagger-ui-dist', '@scarf/scarf']) {
    if (existsSync(join(app, 'node_modules', name))) throw new Error(`${name} is installed with citadel`);
  }
  console.log(`install scripts: ${withScripts.join(', ') || 'none'} (nothing else runs at install time)`);
}

/** Bytes on disk under a folder (files only). */
function bytesUnder(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** What installing citadel and its SQLite driver puts in node_modules (the consumer's own tools aside). */
function checkInstalledSize(app) {
  const query = JSON.parse(
    execFileSync('npm', ['query', '#citadel, #citadel *, #better-sqlite3, #better-sqlite3 *'], {
      cwd: app,
      encoding: 'utf8',
    }),
  );
  // A package nested inside another's folder is counted with it.
  const folders = [...new Set(query.map((node) => node.location))].sort();
  const roots = folders.filter((folder, i) => !folders.slice(0, i).some((f) => folder.startsWith(`${f}/`)));
  const bytes = roots.reduce((sum, folder) => sum + bytesUnder(join(app, folder)), 0);
  const mb = bytes / 1e6;
  console.log(
    `installed size of citadel and better-sqlite3: ${mb.toFixed(1)} MB in ${folders.length} packages`,
  );
  if (mb > INSTALLED_SIZE_LIMIT_MB)
    throw new Error(`citadel installs ${mb.toFixed(1)} MB, over the ${INSTALLED_SIZE_LIMIT_MB} MB bound`);
}

/** `citadel migrate` in the consumer project with a config file; its output and exit code. */
function citadelMigrate(app, dataDir) {
  const env = { ...process.env, CITADEL_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const result = spawnSync('node', ['node_modules/citadel/bin/citadel.mjs', 'migrate'], {
    cwd: app,
    encoding: 'utf8',
    env,
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function checkConfigLoading(app, work) {
  const config = (marker) => `export default { migrations: [{ name: '9999_${marker}', async up() {} }] };\n`;
  // Type annotations: only a TypeScript-aware Node.js loads this one.
  writeFileSync(
    join(app, 'citadel.config.ts'),
    `const name: string = '9999_from_ts';\nexport default { migrations: [{ name, async up(): Promise<void> {} }] };\n`,
  );
  const strips = typeof process.features.typescript === 'string';
  if (strips) {
    const ts = citadelMigrate(app, mkdtempSync(join(work, 'data-')));
    if (ts.status !== 0 || !ts.output.includes('9999_from_ts'))
      throw new Error(`citadel.config.ts was not loaded by Node.js's type stripping: ${ts.output}`);
    console.log(`config: citadel.config.ts loaded by Node.js ${process.versions.node} itself`);
  } else {
    const refused = citadelMigrate(app, mkdtempSync(join(work, 'data-')));
    const lines = refused.output.trim().split('\n');
    if (refused.status !== 1 || lines.length !== 1 || !/compile it to citadel\.config\.js/.test(lines[0]))
      throw new Error(
        `a .ts config on Node.js ${process.versions.node}: expected one line, got: ${refused.output}`,
      );
    console.log(`config: on Node.js ${process.versions.node}, a .ts config alone is one line: ${lines[0]}`);
  }
  writeFileSync(join(app, 'citadel.config.mjs'), config('from_mjs'));
  rmSync(join(app, 'citadel.config.ts'));
  const mjs = citadelMigrate(app, mkdtempSync(join(work, 'data-')));
  if (mjs.status !== 0 || !mjs.output.includes('9999_from_mjs'))
    throw new Error(`citadel.config.mjs was not loaded: ${mjs.output}`);
  console.log('config: citadel.config.mjs loaded');
}

/** `export { name as entry__name } from 'entry'` for every export, found by the TypeScript checker. */
function everyExportModule(app) {
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
  };
  const from = join(app, 'src/main.ts');
  const files = ENTRY_POINTS.map((entry) => {
    const resolved = ts.resolveModuleName(entry, from, options, ts.sys).resolvedModule;
    if (!resolved) throw new Error(`cannot resolve the entry point ${entry} from the consumer project`);
    return resolved.resolvedFileName;
  });
  const program = ts.createProgram({ rootNames: files, options });
  const checker = program.getTypeChecker();
  const lines = ['// Generated by scripts/consumer-test.mjs: every export of every entry point.'];
  const values = [];
  ENTRY_POINTS.forEach((entry, i) => {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(files[i]));
    const exported = symbol ? checker.getExportsOfModule(symbol) : [];
    if (exported.length === 0) throw new Error(`${entry} exports nothing`);
    const prefix = entry.replace(/\W/g, '_');
    const names = exported.map((s) => s.getName());
    lines.push(`export { ${names.map((n) => `${n} as ${prefix}__${n}`).join(', ')} } from '${entry}';`);
    for (const s of exported) {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      if (target.flags & ts.SymbolFlags.Value) values.push(`${prefix}__${s.getName()}`);
    }
    console.log(`${entry}: ${names.length} exports (${files[i].slice(app.length + 1)})`);
  });
  lines.push(`/** The value exports, for the run-time check that each is defined. */`);
  lines.push(`export const VALUE_EXPORTS = [${values.map((v) => `'${v}'`).join(', ')}] as const;`);
  return `${lines.join('\n')}\n`;
}
