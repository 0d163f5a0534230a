import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import {
  defaultPlugins,
  defineEndpoint,
  definePlugin,
  Envelope,
  type CitadelMigration,
  type CitadelServices,
  type Factor,
  type UserRecord,
} from '../../src/index.ts';
import { TIMESTAMP, userIdColumn } from '../../src/migrations.ts';
import { safeEqual } from '../../src/core/crypto.ts';
import { FactorRegistry } from '../../src/auth/core/factors/registry.ts';
import { builtInFactors } from '../../src/auth/factors/registry.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import type { TestClient } from '../support/client.ts';
import { sudoOptions } from '../../src/auth/sudo/options.ts';

// A real second factor from outside Citadel's files: a security PIN, stored as a keyed hash.
interface PinFactorsTable {
  user_id: number;
  pin_hash: string;
  created_at: string;
}
declare module '../../src/db/schema.ts' {
  interface Database {
    pin_factors: PinFactorsTable;
  }
}

const pinMigration: CitadelMigration = {
  name: '1000_pin_factors',
  async up(db) {
    await db.schema
      .createTable('pin_factors')
      .addColumn('user_id', 'integer', (c) => userIdColumn(c).primaryKey())
      .addColumn('pin_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};

function pinHash(services: CitadelServices, userId: number, pin: string): string {
  return services.secrets.hmac('pin_factor', `${userId}:${pin}`);
}

async function storedPin(services: CitadelServices, user: UserRecord): Promise<string | undefined> {
  const row = await services.db
    .selectFrom('pin_factors')
    .select('pin_hash')
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return row?.pin_hash;
}

const pinFactor: Factor = {
  id: 'pin',
  label: 'Security PIN',
  proofInput: { label: 'Your PIN', inputmode: 'numeric', autocomplete: 'off' },
  async isEnrolled(request, user) {
    return (await storedPin(request.services, user)) !== undefined;
  },
  async isAvailable(request, user) {
    return (await storedPin(request.services, user)) !== undefined;
  },
  async challenge() {
    return {};
  },
  async verify(request, user, proof) {
    pinChecks.push(user.id);
    const stored = await storedPin(request.services, user);
    if (stored === undefined || typeof proof !== 'string' || !/^\d{6}$/.test(proof)) return false;
    return safeEqual(stored, pinHash(request.services, user.id, proof));
  },
};

// A sudo-only proof: never offered at the sign-in step.
const sudoOnlyFactor: Factor = {
  id: 'office_phone',
  label: 'Office phone callback',
  scopes: ['sudo'],
  async isAvailable() {
    return true;
  },
  async challenge() {
    return { calling: true };
  },
  async verify(_request, _user, proof) {
    return proof === 'picked-up';
  },
};

const seenRequests: string[] = [];
/** Every user id a PIN was checked for: the limits must hold for a plugin's factor too. */
const pinChecks: number[] = [];

const pinPlugin = definePlugin({
  id: 'pin',
  migrations: [pinMigration],
  endpoints: [
    defineEndpoint({
      method: 'POST',
      path: '/pin',
      action: 'pin.set',
      auth: 'session',
      bearer: false,
      body: Type.Object({ pin: Type.String({ pattern: '^[0-9]{6}$' }) }),
      responses: { 200: Envelope() },
      async handler({ body, caller, services }) {
        await services.db
          .insertInto('pin_factors')
          .values({
            user_id: caller.user.id,
            pin_hash: pinHash(services, caller.user.id, body.pin),
            created_at: services.clock.now().toISOString(),
          })
          .execute();
        return { status: 'success' };
      },
    }),
  ],
  factors: [pinFactor, sudoOnlyFactor],
  hooks: {
    request(request) {
      if (request.path === '/me' && request.caller) seenRequests.push(request.caller.user.username);
    },
  },
});

const PIN = '482913';

describe("a plugin's factor: sign-in two-factor step and sudo", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), pinPlugin] });
  });
  afterAll(async () => t?.close());

  async function userWithPin(): Promise<UserRecord> {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.post('/pin', { pin: PIN })).status).toBe(200);
    return user;
  }

  async function startLogin(user: UserRecord): Promise<TestClient> {
    const client = t.client();
    const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.action_required');
    return client;
  }

  it('a user without the factor signs in with a password alone', async () => {
    const user = await t.createUser();
    const login = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.attempt');
  });

  it('once set up, every sign-in asks for it; a wrong PIN is refused, the right one signs in', async () => {
    const user = await userWithPin();
    const client = await startLogin(user);
    const step = await client.get('/action/show');
    expect(step.body.data).toMatchObject({ action: 'two_factor', factors: ['pin'] });

    const wrong = await client.post('/action/handle', { factor: 'pin', proof: '000000' });
    expect(wrong.status).toBe(404);
    expect((await client.get('/me')).status).toBe(401);
    const unknown = await client.post('/action/handle', { factor: 'nope', proof: PIN });
    expect(unknown.status).toBe(422);
    // The sudo-only factor is not a second factor.
    const sudoOnly = await client.post('/action/handle', { factor: 'office_phone', proof: 'picked-up' });
    expect(sudoOnly.status).toBe(422);

    const done = await client.post('/action/handle', { factor: 'pin', proof: PIN });
    expect(done.status, done.text).toBe(200);
    expect(done.body.action).toBe('action.success');
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    // The plugin's request listener saw the signed-in caller.
    expect(seenRequests).toContain(user.username);
  });

  it('the sign-in step page offers it by its label', async () => {
    const user = await userWithPin();
    const browser = t.client();
    await browser.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    const page = await browser.get('/action/show', 'form');
    expect(page.text).toContain('<option value="pin">Security PIN</option>');
    expect(page.text).not.toContain('value="totp"');
    const done = await browser.post('/action/handle', { factor: 'pin', proof: PIN }, 'form');
    expect(done.status).toBe(303);
    expect((await browser.get('/me')).body.user.id).toBe(user.id);
  });

  it('sudo lists and verifies it (and the sudo-only factor), JSON and page', async () => {
    const user = await userWithPin();
    const client = await startLogin(user);
    await client.post('/action/handle', { factor: 'pin', proof: PIN });

    const sudo = await client.get('/sudo');
    expect(sudo.body.data.factors).toEqual(['password', 'pin', 'office_phone']);
    const page = await client.get('/sudo', 'form');
    expect(page.text).toContain('<section id="sudo-pin">');
    expect(page.text).toContain('<h2>Security PIN</h2>');
    expect(page.text).toContain('<input type="hidden" name="factor" value="pin" />');
    expect(page.text).toContain('Your PIN');
    expect(page.text).toContain('<section id="sudo-office_phone">');

    const challenge = await client.post('/sudo/challenge', { factor: 'office_phone' });
    expect(challenge.body.data).toEqual({ factor: 'office_phone', calling: true });
    const wrong = await client.post('/sudo/verify', { factor: 'pin', proof: '111111' });
    expect(wrong.status).toBe(422);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
    const ok = await client.post('/sudo/verify', { factor: 'pin', proof: PIN });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.action).toBe('sudo.verified');
    expect((await client.get('/sudo')).body.data.active).toBe(true);
  });
});

describe("a plugin's factor under the sudo failure limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), pinPlugin] });
  });
  afterAll(async () => t?.close());

  it('guesses sent all at once: at most SUDO_MAX_FAILURES reach the factor, then even the right PIN waits', async () => {
    const user = await t.createUser();
    const setup = await t.signIn(user);
    expect((await setup.post('/pin', { pin: PIN })).status).toBe(200);
    const client = t.client();
    await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect((await client.post('/action/handle', { factor: 'pin', proof: PIN })).status).toBe(200);

    const max = sudoOptions(t.services).maxFailures;
    const before = pinChecks.filter((id) => id === user.id).length;
    const guesses = Array.from({ length: max + 4 }, (_, i) => String(100000 + i));
    const answers = await Promise.all(
      guesses.map((proof) => client.post('/sudo/verify', { factor: 'pin', proof })),
    );
    expect(answers.filter((a) => a.status === 422).length).toBeLessThanOrEqual(max);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(4);
    expect(pinChecks.filter((id) => id === user.id).length - before).toBeLessThanOrEqual(max);
    expect((await client.post('/sudo/verify', { factor: 'pin', proof: PIN })).status).toBe(429);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
  });
});

describe('the factor registry', () => {
  it('built-in factors first; scopes split sign-in from sudo; ids are unique and well formed', () => {
    const registry = new FactorRegistry([...builtInFactors, pinFactor, sudoOnlyFactor]);
    expect(registry.secondFactors.map((f) => f.id)).toEqual(['totp', 'passkey', 'recovery_code', 'pin']);
    expect(registry.sudoFactors.map((f) => f.id)).toEqual([
      'password',
      'totp',
      'passkey',
      'recovery_code',
      'pin',
      'office_phone',
    ]);
    expect(() => new FactorRegistry([...builtInFactors, { ...pinFactor, id: 'totp' }])).toThrow(
      'two factors have the id "totp"',
    );
    expect(() => new FactorRegistry([{ ...pinFactor, id: 'Bad Id' }])).toThrow(/factor id "Bad Id"/);
  });
});
