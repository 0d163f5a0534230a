import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { drainAndClose } from '../../src/ops/shutdown.ts';
import { PROCESS_TEST_TIMEOUT, freePort, startServe, until } from '../support/processes.ts';

const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');

/** An HTTP/1.1 request whose body is only half sent: a request in flight for as long as we like. */
function startSlowLogin(url: string) {
  const { port } = new URL(url);
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'a wrong password' });
  const socket: Socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  socket.on('error', () => undefined);
  socket.write(
    `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body.slice(0, 10),
  );
  return {
    socket,
    finish: () => socket.write(body.slice(10)),
    received: () => received,
    closed,
  };
}

describe('SIGTERM', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it(
    'lets a request in flight finish, refuses new connections, then exits 0',
    async () => {
      const serve = await startServe({ DATABASE_URL: database.url });
      try {
        const slow = startSlowLogin(serve.url);
        // The request has reached the server once its start is logged.
        await until(() => /"url":"\/login"/.test(serve.output()), 'the request to reach the server');

        serve.child.kill('SIGTERM');
        await until(() => serve.output().includes('SIGTERM: shutting down'), 'the drain to begin');
        const refused = await fetch(`${serve.url}/healthz`).then(
          () => 'answered',
          () => 'refused',
        );
        expect(refused).toBe('refused');
        expect(serve.child.exitCode).toBeNull();

        slow.finish();
        await slow.closed;
        expect(slow.received()).toMatch(/^HTTP\/1\.1 401 /);
        expect(slow.received()).toContain('"action":"login.attempt"');
        expect(await serve.exited).toEqual({ code: 0, signal: null });
      } finally {
        serve.child.kill('SIGKILL');
      }
    },
    PROCESS_TEST_TIMEOUT,
  );

  it('cuts requests still running when the drain limit passes', async () => {
    const t = await startTestApp();
    try {
      const port = await freePort();
      const address = await t.app.listen({ port, host: '127.0.0.1' });
      // In flight once the server has its headers (Fastify waits for the rest of the body).
      const received = new Promise<void>((done) => t.app.server.once('request', () => done()));
      const slow = startSlowLogin(address);
      await until(() => slow.socket.writableLength === 0, 'the partial request to be sent');
      await received;
      const { forced } = await drainAndClose(t.server, 300);
      expect(forced).toBe(true);
      await slow.closed;
      expect(slow.received()).toBe('');
    } finally {
      await t.close();
    }
  });
});

describe('start-up', () => {
  it(
    'an unreachable REDIS_URL stops start-up with one line and exit code 1',
    async () => {
      const database = await createTestDatabase();
      try {
        const port = await freePort();
        const child = spawn(process.execPath, [BIN, 'serve'], {
          cwd: mkdtempSync(join(tmpdir(), 'citadel-ops-')),
          env: {
            PATH: process.env.PATH ?? '',
            SESSION_SECRET: TEST_SECRET,
            SEED_DEMO: '0',
            PORT: '0',
            DATABASE_URL: database.url,
            REDIS_URL: `redis://:hunter2secret@127.0.0.1:${port}`,
          },
        });
        let output = '';
        child.stdout.on('data', (c: Buffer) => (output += c.toString()));
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        const code = await new Promise((done) => child.once('exit', done));
        expect(code).toBe(1);
        expect(output.trim().split('\n')).toEqual([
          expect.stringMatching(
            /^citadel: .*could not connect to Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/,
          ),
        ]);
        expect(output).not.toContain('hunter2secret');
      } finally {
        await database.drop();
      }
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'logs JSON lines when stdout is not a terminal, readable lines when it is one',
    async () => {
      const database = await createTestDatabase();
      try {
        const piped = await startServe({ DATABASE_URL: database.url });
        piped.child.kill('SIGTERM');
        await piped.exited;
        const lines = piped.output().trim().split('\n');
        for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();

        // `script` runs the command on a pseudo-terminal, as an operator's shell would.
        const env = `DATABASE_URL='${database.url}' SESSION_SECRET='${TEST_SECRET}' SEED_DEMO=0 PORT=0`;
        const child = spawn('script', ['-qec', `env ${env} ${process.execPath} ${BIN} serve`, '/dev/null'], {
          cwd: mkdtempSync(join(tmpdir(), 'citadel-tty-')),
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'dumb' },
        });
        let output = '';
        child.stdout.on('data', (c: Buffer) => (output += c.toString()));
        const exited = new Promise((done) => child.once('exit', done));
        try {
          await until(() => output.includes('Citadel listening on'), 'the terminal server to start', 60_000);
        } finally {
          // SIGTERM to the process group `script` started: the server drains and exits.
          child.kill('SIGTERM');
          await exited;
        }
        const line = output.split('\n').find((l) => l.includes('Citadel listening on'))!;
        expect(line).toMatch(/INFO/);
        expect(line.trim().startsWith('{')).toBe(false);
      } finally {
        await database.drop();
      }
    },
    PROCESS_TEST_TIMEOUT,
  );
});
