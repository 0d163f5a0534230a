/**
 * Issue 13, item 4: a session deleted (sign-out, reset, revoke) while a request on it is in flight
 * stays deleted: the request's save can neither write it back nor rotate it to a new id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { startTestApp, type TestApp } from '../support/app.ts';
import { REDIS_URL, redisAvailable } from '../support/services.ts';
import { sessionEvent } from '../../src/auth/core/security-events.ts';

const redisUp = await redisAvailable();

/** Requests that hold until the test opens the gate, then change their session. */
class Gate {
  private waiting: (() => void)[] = [];
  readonly arrived: Promise<void>[] = [];
  private onArrive: (() => void)[] = [];

  wait(): Promise<void> {
    this.onArrive.shift()?.();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Resolves once `count` requests are waiting. */
  expect(count: number): Promise<void>[] {
    return Array.from({ length: count }, () => new Promise<void>((resolve) => this.onArrive.push(resolve)));
  }

  open(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

function gatedRoutes(gate: Gate) {
  return (app: FastifyInstance) => {
    app.post('/test/slow-write', { config: { action: 'test.slow' } }, async (request) => {
      await gate.wait();
      request.session.set('touched', Date.now());
      return { ok: true };
    });
    app.post('/test/slow-rotate', { config: { action: 'test.slow' } }, async (request) => {
      await gate.wait();
      // What sudo and set-password do: a fresh id for the same state.
      request.session.regenerate();
      return { ok: true };
    });
    // A change with its event, as sudo elevation is (the event commits with the session or not at all).
    for (const [path, change] of [
      ['/test/slow-write-event', (request: FastifyRequest) => request.session.set('touched', Date.now())],
      ['/test/slow-rotate-event', (request: FastifyRequest) => request.session.regenerate()],
    ] as const)
      app.post(path, { config: { action: 'test.slow' } }, async (request) => {
        const userId = request.session.userId;
        await gate.wait();
        change(request);
        request.session.alongWithSave(
          sessionEvent(request.server.clock, { userId, type: 'sudo_elevated', detail: { via: 'test' } }),
        );
        return { ok: true };
      });
  };
}

function suite(name: string, options: { redisUrl?: string }) {
  describe(name, () => {
    let t: TestApp;
    const gate = new Gate();
    beforeAll(async () => {
      t = await startTestApp({ ...options, routes: gatedRoutes(gate) });
    });
    afterAll(async () => t?.close());

    for (const path of ['/test/slow-write', '/test/slow-rotate']) {
      it(`${path}: a stolen cookie kept busy does not survive the victim's password reset`, async () => {
        const user = await t.createUser();
        const thief = await t.signIn(user);
        expect((await thief.get('/me')).status).toBe(200);
        // 20 requests on the stolen session in flight, all parked inside their handlers.
        const arrived = gate.expect(20);
        const inFlight = Array.from({ length: 20 }, () => thief.post(path, {}));
        await Promise.all(arrived);
        // The victim's reset ends every session of the account.
        await t.services.sessions.destroyForUser(user.id);
        gate.open();
        const answers = await Promise.all(inFlight);
        expect(answers.map((a) => a.status).every((s) => s === 200)).toBe(true);
        // Nothing came back: the thief's cookie (whatever the last answer set) signs in nobody.
        expect((await thief.get('/me')).status).toBe(401);
        if (!options.redisUrl) {
          const rows = await t.services.db
            .selectFrom('sessions')
            .select('id')
            .where('user_id', '=', user.id)
            .execute();
          expect(rows).toHaveLength(0);
        } else {
          const ids = await t.server.redis!.smembers(`citadel:user-sessions:${user.id}`);
          for (const id of ids) expect(await t.server.redis!.exists(`citadel:session:${id}`)).toBe(0);
        }
      });
    }

    it('sign-out while a request is in flight: the session stays ended', async () => {
      const user = await t.createUser();
      const client = await t.signIn(user);
      const arrived = gate.expect(1);
      const slow = client.post('/test/slow-write', {});
      await Promise.all(arrived);
      // Same cookie, another request: sign out.
      const other = t.client();
      for (const [k, v] of client.cookies) other.cookies.set(k, v);
      expect((await other.post('/logout', {})).status).toBe(200);
      gate.open();
      expect((await slow).status).toBe(200);
      expect((await client.get('/me')).status).toBe(401);
    });

    for (const path of ['/test/slow-write-event', '/test/slow-rotate-event'])
      it(`${path}: a session ended meanwhile records nothing and is not written back`, async () => {
        const user = await t.createUser();
        const client = await t.signIn(user);
        const events = () =>
          t.services.db
            .selectFrom('security_events')
            .select('type')
            .where('user_id', '=', user.id)
            .where('type', '=', 'sudo_elevated')
            .execute();
        const arrived = gate.expect(1);
        const slow = client.post(path, {});
        await Promise.all(arrived);
        const other = t.client();
        for (const [k, v] of client.cookies) other.cookies.set(k, v);
        expect((await other.post('/logout', {})).status).toBe(200);
        gate.open();
        expect((await slow).status).toBe(200);
        expect((await client.get('/me')).status).toBe(401);
        expect(await events()).toEqual([]);
        // The same change on a live session records its event once.
        const live = await t.signIn(user);
        const arrivedLive = gate.expect(1);
        const done = live.post(path, {});
        await Promise.all(arrivedLive);
        gate.open();
        expect((await done).status).toBe(200);
        expect((await live.get('/me')).status).toBe(200);
        expect(await events()).toHaveLength(1);
      });

    it('a session that is still there is updated and rotated as before', async () => {
      const user = await t.createUser();
      const client = await t.signIn(user);
      const arrived = gate.expect(1);
      const slow = client.post('/test/slow-rotate', {});
      await Promise.all(arrived);
      gate.open();
      expect((await slow).status).toBe(200);
      expect((await client.get('/me')).status).toBe(200);
    });
  });
}

suite('session write-back, database store', {});
describe.skipIf(!redisUp)('redis', () => suite('session write-back, Redis store', { redisUrl: REDIS_URL }));
