import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { PROCESS_TEST_TIMEOUT, startServe, until, type ServeProcess } from '../support/processes.ts';

/** Worker pids seen answering, read from the workers' own request log lines. */
function answeringPids(output: string, path: string): Set<number> {
  const pids = new Set<number>();
  const byRequest = new Map<string, number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { pid: number; reqId?: string; req?: { url: string }; msg: string };
    if (entry.req?.url === path && entry.reqId) byRequest.set(`${entry.pid}/${entry.reqId}`, entry.pid);
    if (entry.msg === 'request completed' && byRequest.has(`${entry.pid}/${entry.reqId}`))
      pids.add(entry.pid);
  }
  return pids;
}

/** Worker pids in the order the primary saw them listen. */
function listeningWorkers(output: string): number[] {
  return [...output.matchAll(/"msg":"worker \d+ listening","worker":(\d+)/g)].map((m) => Number(m[1]));
}

/** New connections each time, so the primary hands them out across workers. */
async function hitMany(url: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
    statuses.push(response.status);
    await response.arrayBuffer();
  }
  return statuses;
}

describe('citadel serve --workers 2', () => {
  let database: TestDatabase;
  let serve: ServeProcess | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    serve = await startServe(
      { DATABASE_URL: database.url },
      ['--workers', '2'],
      /(Citadel primary): 2 workers/,
    );
  }, PROCESS_TEST_TIMEOUT);
  afterAll(async () => {
    serve?.child.kill('SIGKILL');
    await database?.drop();
  });

  it(
    'both workers answer on one port; a killed worker is replaced; SIGTERM stops all and exits 0',
    async () => {
      const output = serve!.output;
      const url = /Citadel listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!;
      const workerPids = listeningWorkers(output());
      expect(new Set(workerPids).size).toBe(2);

      expect(new Set(await hitMany(url, 12))).toEqual(new Set([200]));
      await until(() => answeringPids(output(), '/healthz').size === 2, 'both workers to answer');
      expect([...answeringPids(output(), '/healthz')].sort()).toEqual([...workerPids].sort());

      // A crash: the primary starts a replacement, which serves too.
      process.kill(workerPids[0]!, 'SIGKILL');
      await until(() => listeningWorkers(output()).length === 3, 'the replacement to listen', 60_000);
      expect(output()).toMatch(/exited \(SIGKILL\); starting a replacement/);
      const replacement = listeningWorkers(output())[2]!;
      expect(workerPids).not.toContain(replacement);
      const deadline = Date.now() + 30_000;
      while (!answeringPids(output(), '/healthz').has(replacement) && Date.now() < deadline) {
        expect(new Set(await hitMany(url, 4))).toEqual(new Set([200]));
      }
      expect(answeringPids(output(), '/healthz')).toContain(replacement);

      serve!.child.kill('SIGTERM');
      expect(await serve!.exited).toEqual({ code: 0, signal: null });
      for (const pid of [workerPids[1]!, replacement]) {
        expect(() => process.kill(pid, 0), `worker ${pid} still running`).toThrow();
      }
    },
    PROCESS_TEST_TIMEOUT,
  );
});
