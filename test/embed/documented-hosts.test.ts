// Dialect-independent: the documented servers run on SQLite as written; `npm test` runs it with the first database only.
/**
 * The three host applications of docs/build-your-app.md section 7 (Fastify, Express, Hono), run
 * as written there (with the notes migration and resource API of sections 3 and 4 before them),
 * each in a process of its own: the resource API answers at /api beside the auth routes at /auth,
 * and a password reset's link reaches the server's standard output although no SMTP server, host
 * logger or mail service is set up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = join(ROOT, 'docs/build-your-app.md');
const OUT = join(ROOT, '.test-output/documented-hosts');
const ENTRIES: Record<string, string> = {
  citadel: 'src/index.ts',
  'citadel/fastify': 'src/fastify.ts',
  'citadel/migrations': 'src/migrations.ts',
};

/** The page's ```ts blocks in order (the numbering of test/docs/snippets.test.ts). */
function blocks(): string[] {
  const text = readFileSync(PAGE, 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** Sections 3 and 4, then the host's block (the one whose first line names it). */
function program(host: string): string {
  const all = blocks();
  const hostBlock = all.find((code) => code.startsWith(`// server.ts (${host}`));
  if (!hostBlock) throw new Error(`docs/build-your-app.md has no "// server.ts (${host}" block`);
  const migration = all.find((code) => code.startsWith('// migrations/'))!;
  const resources = all.find((code) => code.includes('createApi('))!;
  return [migration, resources, hostBlock]
    .join('\n')
    .replace(/from '(citadel(?:\/\w+)?)'/g, (_, name: string) => `from '${join(ROOT, ENTRIES[name]!)}'`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

interface Running {
  child: ChildProcess;
  output: () => string;
  base: string;
  port: number;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** The host's program in a directory of its own (its ./data), port 3000 replaced by a free one. */
async function start(host: string, edit: (code: string) => string = (code) => code): Promise<Running> {
  const port = await freePort();
  const dir = join(OUT, host.toLowerCase());
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.ts'), edit(program(host)).replace(/\b3000\b/g, String(port)));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], { cwd: dir, env });
  running.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const base = `http://localhost:${port}`;
  for (let tries = 0; ; tries += 1) {
    if (child.exitCode !== null) throw new Error(`${host} exited:\n${text}`);
    const answer = await fetch(`${base}/auth/login`, { headers: { accept: 'application/json' } }).catch(
      () => null,
    );
    if (answer) break;
    if (tries > 300) throw new Error(`${host} did not answer:\n${text}`);
    await new Promise((done) => setTimeout(done, 200));
  }
  return { child, output: () => text, base, port };
}

async function until(what: () => string | undefined, output: () => string): Promise<string> {
  for (let tries = 0; tries < 100; tries += 1) {
    const found = what();
    if (found) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`not found in the output:\n${output()}`);
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

describe.each(['Fastify', 'Express', 'Hono'])('the documented %s host', (host) => {
  it('serves /auth and the resource API at /api; the reset link reaches standard output', async () => {
    const server = await start(host);
    const registered = await fetch(`${server.base}/auth/register`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({
        username: 'ada',
        email: 'ada@example.com',
        password: 'correct horse battery',
        password_confirm: 'correct horse battery',
      }),
    });
    expect(registered.status, await registered.clone().text()).toBeLessThan(300);
    const cookie = registered.headers
      .getSetCookie()
      .map((one) => one.split(';')[0])
      .join('; ');

    const reset = await fetch(`${server.base}/auth/forgot-password`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(reset.status).toBeLessThan(300);
    const link = await until(
      () =>
        new RegExp(`${server.base}/auth/reset-password\\?token=[A-Za-z0-9_-]+`).exec(server.output())?.[0],
      server.output,
    );
    const page = await fetch(link, { headers: { accept: 'application/json' } });
    expect(page.status, link).toBe(200);

    // The resource API beside the auth routes, with the session of the registration.
    const made = await fetch(`${server.base}/api/v1/notes`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, cookie },
      body: JSON.stringify({ body: 'first note' }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const list = await fetch(`${server.base}/api/v1/notes`, { headers: { ...JSON_HEADERS, cookie } });
    expect(((await list.json()) as { data: { body: string }[] }).data.map((note) => note.body)).toEqual([
      'first note',
    ]);
    expect((await fetch(`${server.base}/auth/api/v1/notes`, { headers: { cookie } })).status).toBe(200);
    // Not Citadel's: the host answers it.
    expect((await fetch(`${server.base}/apix`)).status).toBe(404);

    // A problem's instance is a path of the host's, mount path included.
    const missing = await fetch(`${server.base}/api/v1/notes/99999`, { headers: { cookie } });
    expect(missing.status).toBe(404);
    const instance = ((await missing.json()) as { instance: string }).instance;
    expect(instance).toBe(host === 'Hono' ? '/auth/api/v1/notes/99999' : '/api/v1/notes/99999');
    const under = await fetch(`${server.base}/auth/api/v1/notes/99999`, { headers: { cookie } });
    expect(((await under.json()) as { instance: string }).instance).toBe('/auth/api/v1/notes/99999');
  }, 120_000);
});

describe('without appUrl', () => {
  it('warns once at start with the address emailed links use', async () => {
    const server = await start('Fastify', (code) => code.replace(/^\s*appUrl: .*\n/m, ''));
    const notice = await until(() => /appUrl is not set: [^"\n]*/.exec(server.output())?.[0], server.output);
    expect(notice).toContain('http://localhost:3000/auth');
    expect(server.output().split('appUrl is not set').length - 1).toBe(1);
  }, 120_000);
});
