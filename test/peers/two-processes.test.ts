import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { TEST_SECRET } from '../support/app.ts';

const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');

interface Peer {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** A real `citadel serve` process on a free port. */
async function startPeer(databaseUrl: string): Promise<Peer> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: mkdtempSync(join(tmpdir(), 'citadel-peer-')),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: databaseUrl,
      SESSION_SECRET: TEST_SECRET,
      PORT: '0',
      SEED_DEMO: '0',
    },
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const url = /Citadel listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (url) return { child, url, output: () => output };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGTERM');
  throw new Error(`citadel serve did not start:\n${output}`);
}

async function stopPeer(peer: Peer | undefined): Promise<void> {
  if (!peer || peer.child.exitCode !== null) return;
  const exited = new Promise((r) => peer.child.once('exit', r));
  peer.child.kill('SIGTERM');
  await exited;
}

/** A minimal browser: one cookie jar over fetch. */
class Browser {
  private jar = new Map<string, string>();

  async call(url: string, method = 'GET', body?: unknown) {
    const headers: Record<string, string> = { accept: 'application/json' };
    // A JSON content type is what exempts a REST post from the CSRF token, even without a body.
    const payload = method === 'GET' ? undefined : JSON.stringify(body ?? {});
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
}

describe('two citadel serve processes sharing one database', () => {
  let database: TestDatabase;
  let a: Peer | undefined;
  let b: Peer | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Started together: both migrate the same empty database at once.
    [a, b] = await Promise.all([startPeer(database.url), startPeer(database.url)]);
  });
  afterAll(async () => {
    await Promise.all([stopPeer(a), stopPeer(b)]);
    await database?.drop();
  });

  it('both came up on a database they migrated concurrently', () => {
    expect(a!.url).not.toBe(b!.url);
  });

  it('register on one, be signed in on the other; sign out there ends it everywhere', async () => {
    const browser = new Browser();
    const password = 'peer-process-password-5';
    const reg = await browser.call(`${a!.url}/register`, 'POST', {
      username: 'Peer User',
      email: 'peer@example.com',
      password,
      password_confirm: password,
    });
    expect(reg.status).toBe(201);
    const me = await browser.call(`${b!.url}/me`);
    expect(me.status).toBe(200);
    expect((me.body.user as { username: string }).username).toBe('Peer User');
    expect((await browser.call(`${b!.url}/logout`, 'POST')).status).toBe(200);
    expect((await browser.call(`${a!.url}/me`)).status).toBe(401);
  });

  it('login failures are limited across the processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const peer = i % 2 === 0 ? a! : b!;
      const res = await new Browser().call(`${peer.url}/login`, 'POST', {
        email: 'peer@example.com',
        password: `wrong-${i}-password`,
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});
