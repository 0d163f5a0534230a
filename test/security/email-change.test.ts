import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import type { ClientKind, TestClient } from '../support/client.ts';
import { linkIn } from '../support/mail.ts';
import { elevate } from '../support/sudo.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

/**
 * Contract 14, email change (issue 20 item 2): the link's page confirms only with a POST in a
 * session of the account that asked; a pending change ends when the account's credentials or
 * sessions are reset; requests are limited; REGISTER_HIDE_EXISTING hides taken addresses; the
 * link's token never reaches the log.
 */
const LINK_PREFIX = 'http://localhost:3000/account/email/verify/';
const NEW_PASSWORD = 'a brand new passphrase 7';

let counter = 0;
const fresh = (label: string) => `${label}-${process.pid}-${++counter}@example.org`;

async function linkTo(t: TestApp, address: string) {
  const path = new URL(linkIn(await t.mail.waitFor(address, { count: 1 }), LINK_PREFIX)).pathname;
  return { path, token: decodeURIComponent(path.split('/').pop()!) };
}

/** `client` (elevated here) asks to move `user` to a fresh address; its link. */
async function pendingChange(t: TestApp, client: TestClient, label = 'moved') {
  await elevate(client);
  const address = fresh(label);
  const response = await client.post('/account/email', { email: address });
  expect(response.status, response.text).toBe(200);
  return { address, ...(await linkTo(t, address)) };
}

async function stored(t: TestApp, user: UserRecord) {
  return (await t.services.users.findById(user.id))!;
}

describe('email change: only a POST in the requesting account session confirms', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('social takeover: GET, HEAD and anonymous POSTs of the link change nothing; the link stays valid', async () => {
    // The attacker proved their own address, then asks to move it to the victim's.
    const attacker = await t.createUser({ emailVerified: true });
    const before = await stored(t, attacker);
    const client = await t.signIn(attacker);
    await elevate(client);
    const victim = fresh('victim');
    await client.post('/account/email', { email: victim });
    const { path, token } = await linkTo(t, victim);

    // A mail scanner (or the victim) opens the link, signed out.
    const scanner = t.client();
    const json = await scanner.get(path);
    expect(json.status).toBe(401);
    expect(json.body).toMatchObject({ status: 'error', redirect_to: '/login' });
    expect(json.body.data).toBeUndefined();
    const page = await scanner.get(path, 'form');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/login');
    const head = await t.app.inject({ method: 'HEAD', url: path });
    expect(head.statusCode).toBeLessThan(500);
    expect((await scanner.post('/account/email/verify', { token })).status).toBe(401);
    const form = await scanner.post('/account/email/verify', { token }, 'form');
    expect(form.status).toBe(303);
    expect(form.location).toBe('/login');

    const after = await stored(t, attacker);
    expect(after.email).toBe(before.email);
    expect(after.email_verified_at).toBe(before.email_verified_at);
    expect(await t.services.users.findByEmail(victim)).toBeUndefined();

    // The requester's own GET shows the page and still changes nothing; only the POST does.
    expect((await client.get(path)).status).toBe(200);
    expect((await stored(t, attacker)).email).toBe(before.email);
    expect((await client.post('/account/email/verify', { token })).status).toBe(200);
    expect((await stored(t, attacker)).email).toBe(victim);
  });

  for (const kind of ['json', 'form'] as ClientKind[]) {
    it(`another account's session is refused with 403 and the link stays valid (${kind})`, async () => {
      const owner = await t.createUser();
      const ownerClient = await t.signIn(owner);
      const { path, token, address } = await pendingChange(t, ownerClient);
      const other = await t.signIn(await t.createUser());

      const shown = await other.get(path, kind);
      expect(shown.status).toBe(403);
      expect(shown.text).not.toContain(address);
      expect(shown.text).not.toContain(`value="${token}"`);
      const posted = await other.post('/account/email/verify', { token }, kind);
      expect(posted.status).toBe(403);
      expect((await stored(t, owner)).email).toBe(owner.email);

      expect((await ownerClient.post('/account/email/verify', { token })).status).toBe(200);
      expect((await stored(t, owner)).email).toBe(address);
    });
  }

  it('a bearer token of the account cannot confirm (a session is needed)', async () => {
    const owner = await t.createUser();
    const client = await t.signIn(owner);
    const { token } = await pendingChange(t, client);
    const pat = (await client.post('/tokens', { name: 'ci' })).body.token as string;
    const response = await t.client().post('/account/email/verify', { token }, 'json', { token: pat });
    expect(response.status).toBe(401);
    expect((await stored(t, owner)).email).toBe(owner.email);
  });
});

describe('email change: a pending change ends with the account recovery', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  /** The victim and an attacker who knows the password, with a change the attacker asked for. */
  async function attackInProgress() {
    const victim = await t.createUser();
    const victimClient = await t.signIn(victim);
    const attackerClient = await t.signIn(victim);
    const change = await pendingChange(t, attackerClient, 'attacker');
    return { victim, victimClient, attackerClient, ...change };
  }

  /** The link is dead for everyone, the victim's own session included. */
  async function expectVoided(victim: UserRecord, client: TestClient, token: string, path: string) {
    expect((await client.get(path)).status).toBe(404);
    expect((await client.post('/account/email/verify', { token })).status).toBe(404);
    expect((await stored(t, victim)).email).toBe(victim.email);
  }

  it('a password reset voids it', async () => {
    const { victim, token, path } = await attackInProgress();
    await t.client().post('/forgot-password', { email: victim.email });
    const mail = await t.mail.waitFor(victim.email, {
      match: (m) => m.text.includes('/reset-password?token='),
    });
    const resetToken = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;
    const reset = await t.client().post('/reset-password', {
      token: resetToken,
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    await expectVoided(victim, await t.signIn(victim, NEW_PASSWORD), token, path);
  });

  it('a password change voids it', async () => {
    const { victim, victimClient, token, path } = await attackInProgress();
    await elevate(victimClient);
    const changed = await victimClient.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).toBe(200);
    await expectVoided(victim, victimClient, token, path);
  });

  it('signing out the other sessions voids it', async () => {
    const { victim, victimClient, token, path } = await attackInProgress();
    const revoked = await victimClient.post('/sessions/revoke-others');
    expect(revoked.body.data.revoked).toBe(1);
    await expectVoided(victim, victimClient, token, path);
  });

  it("signing out the attacker's session alone voids it", async () => {
    const { victim, victimClient, token, path } = await attackInProgress();
    const sessions = (await victimClient.get('/sessions')).body.data.sessions as {
      id: string;
      current: boolean;
    }[];
    const other = sessions.find((s) => !s.current)!;
    expect((await victimClient.post(`/sessions/revoke/${other.id}`)).status).toBe(200);
    await expectVoided(victim, victimClient, token, path);
  });

  it('a newer request voids it, and confirming a change voids every other pending one', async () => {
    const { victim, victimClient, attackerClient, token, path } = await attackInProgress();
    const own = await pendingChange(t, victimClient, 'own');
    await expectVoided(victim, victimClient, token, path);
    // A second pending row (as a race of two requests could leave) ends when the address changes.
    const stray = await pendingChange(t, attackerClient, 'stray');
    await t.services.db
      .updateTable('email_change_tokens')
      .set({ used_at: null })
      .where('user_id', '=', victim.id)
      .where('new_email', '=', own.address)
      .execute();
    expect((await victimClient.post('/account/email/verify', { token: own.token })).status).toBe(200);
    expect((await attackerClient.post('/account/email/verify', { token: stray.token })).status).toBe(404);
    expect((await stored(t, victim)).email).toBe(own.address);
  });
});

describe('email change: requests are limited', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  async function linkMails(addresses: string[]) {
    await t.mail.settled();
    return addresses.flatMap((a) => t.mail.to(a)).filter((m) => m.text.includes(LINK_PREFIX));
  }

  it('20 parallel requests of one account: exactly 5 are sent, the rest 429 with Retry-After', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const addresses = Array.from({ length: 20 }, () => fresh('many'));
    const answers = await Promise.all(addresses.map((email) => client.post('/account/email', { email })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(15);
    for (const answer of refused) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(await linkMails(addresses)).toHaveLength(5);

    // The window ends after an hour.
    t.clock.advance(60 * 60 + 1);
    await elevate(client);
    expect((await client.post('/account/email', { email: fresh('later') })).status).toBe(200);
  });

  it('20 accounts asking for one address at once: exactly 5 links reach it', async () => {
    const target = fresh('target');
    const clients = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const client = await t.signIn(await t.createUser());
        await elevate(client);
        return client;
      }),
    );
    const answers = await Promise.all(clients.map((c) => c.post('/account/email', { email: target })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
    expect(await linkMails([target])).toHaveLength(5);
  });
});

describe('email change with REGISTER_HIDE_EXISTING=1', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ registerActions: ['email_activation'], registerHideExisting: true });
  });
  afterAll(async () => t?.close());

  for (const kind of ['json', 'spa', 'form'] as ClientKind[]) {
    it(`a taken address gets the answer of a free one; its owner a notice, no link (${kind})`, async () => {
      const owner = await t.createUser({ email: fresh('owner') });
      const free = fresh('free');
      const ask = async (email: string) => {
        const client = await t.signIn(await t.createUser());
        const older = await pendingChange(t, client, 'older');
        const answer = await client.post('/account/email', { email }, kind);
        return { client, older, answer };
      };
      const taken = await ask(owner.email.toUpperCase());
      const control = await ask(free);

      const shape = (r: typeof taken.answer, address: string) => ({
        status: r.status,
        location: r.location,
        body: JSON.stringify(r.body ?? null).replaceAll(address, '<address>'),
        type: r.headers['content-type'],
      });
      expect(shape(taken.answer, owner.email)).toEqual(shape(control.answer, free));
      if (kind !== 'form') expect(taken.answer.status).toBe(200);
      else expect(taken.answer.status).toBe(303);
      // Both the same on the flash shown next.
      const flash = async (c: TestClient, address: string) =>
        /<div class="flash[^>]*>[^<]*<\/div>/
          .exec((await c.get('/account', 'form')).text)?.[0]
          ?.replaceAll(address, '<address>');
      if (kind === 'form') {
        const shown = await flash(taken.client, owner.email);
        expect(shown).toContain('<address>');
        expect(shown).toEqual(await flash(control.client, free));
      }
      // The older link of the requester is void either way.
      expect((await taken.client.post('/account/email/verify', { token: taken.older.token })).status).toBe(
        404,
      );
      expect(
        (await control.client.post('/account/email/verify', { token: control.older.token })).status,
      ).toBe(404);

      const notice = await t.mail.waitFor(owner.email, { count: 1 });
      expect(notice.text).toContain(owner.username);
      expect(notice.text).not.toMatch(/https?:\/\//);
      await t.mail.waitFor(free, { count: 1 });
      expect(t.mail.to(owner.email).filter((m) => m.text.includes(LINK_PREFIX))).toHaveLength(0);
      expect((await stored(t, owner)).email).toBe(owner.email);
    });
  }
});

describe('the email-change token never reaches the log', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      logger: undefined,
      logLevel: 'trace',
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('GET (JSON and page), HEAD and POST of the link log it redacted, at trace level', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user, TEST_PASSWORD);
    const { path, token } = await pendingChange(t, client);
    await client.get(path);
    await client.get(path, 'form');
    await t.client().get(path);
    await t.app.inject({ method: 'HEAD', url: path });
    await client.get(`${path}?token=${encodeURIComponent(token)}`);
    expect((await client.post('/account/email/verify', { token })).status).toBe(200);
    await client.get(path);

    const log = lines.join('');
    expect(log).toContain('"url":"/account/email/verify/[redacted]"');
    expect(log).not.toContain(token);
    expect(log).not.toContain(encodeURIComponent(token));
  });
});
