#!/usr/bin/env node
// `npm run build`: compile src/ into dist/ (ESM JavaScript, declarations, source maps) and copy the
// browser assets beside the compiled modules that serve them.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const SRC = 'src';
const DIST = 'dist';

rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

// tsc rewrites `./x.ts` to `./x.js` in JavaScript but keeps `.ts` in declarations, which a consumer
// with allowImportingTsExtensions off cannot resolve: rewrite relative specifiers there too.
const RELATIVE_TS_SPECIFIER =
  /((?:from\s+|import\s*\(\s*|import\s+|declare\s+module\s+)['"])(\.{1,2}\/[^'"]+?)\.ts(['"])/g;
for (const path of files(DIST)) {
  if (!path.endsWith('.d.ts')) continue;
  const text = readFileSync(path, 'utf8');
  const rewritten = text.replace(RELATIVE_TS_SPECIFIER, '$1$2.js$3');
  if (rewritten !== text) writeFileSync(path, rewritten);
}

// Non-TypeScript files under src/ (browser scripts, styles) are read at run time next to the code.
let copied = 0;
for (const path of files(SRC)) {
  if (path.endsWith('.ts')) continue;
  cpSync(path, join(DIST, relative(SRC, path)));
  copied++;
}
// The docs UI's Swagger UI files (Apache-2.0, with its LICENSE and NOTICE), pinned by the
// swagger-ui-dist devDependency: shipped in the package so that installing Citadel installs no
// swagger-ui-dist (nor the install script of its telemetry dependency). src/http/docs-ui/assets.ts
// serves them from here.
const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'favicon-32x32.png',
  'favicon-16x16.png',
  'LICENSE',
  'NOTICE',
];
const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const vendored = join(DIST, 'http/docs-ui/swagger-ui');
for (const name of SWAGGER_UI_FILES) cpSync(join(swaggerUi, name), join(vendored, name));
const { version } = JSON.parse(readFileSync(join(swaggerUi, 'package.json'), 'utf8'));
writeFileSync(join(vendored, 'VERSION'), `swagger-ui-dist ${version}\n`);

console.error(
  `built ${DIST}/ (${copied} asset file${copied === 1 ? '' : 's'} copied, Swagger UI ${version} in ${relative(DIST, vendored)}/)`,
);
