import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { DEVICE_COOKIE } from '../../../src/auth/account-center/device-cookie.ts';
import { FIREFOX_LINUX, SAFARI_IPHONE, storedEvents } from '../../support/security-events.ts';

/** The subject of the new-device notice (after the APP_NAME prefix). */
const isNotice = (mail: { subject: string }) => mail.subject.endsWith('New sign-in to your account');

/**
 * Contract section 14: a new device is a browser without this account's device cookie, whatever
 * its User-Agent. Every sign-in below sends the same common User-Agent unless it says otherwise;
 * the notices are read from the real SMTP capture.
 */
describe('new-device notice: the device cookie, not the User-Agent', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  async function signIn(client: TestClient, email: string, userAgent = FIREFOX_LINUX) {
    const res = await client.post('/login', { email, password: TEST_PASSWORD }, 'json', {
      headers: { 'user-agent': userAgent },
    });
    expect(res.body.action, res.text).toBe('login.attempt');
    return res;
  }

  /**
   * Exactly `count` new-device notices reached `email`: a notice is sent after the sign-in commits,
   * never awaited by it, so every send started so far is awaited first.
   */
  async function expectNotices(email: string, count: number, what = email) {
    await t.mail.settled();
    expect(t.mail.to(email).filter(isNotice).length, what).toBe(count);
  }

  /** A user who signed in once (the first sign-in notifies nobody) from `browser`. */
  async function userKnownTo(browser: TestClient) {
    const user = await t.createUser();
    await signIn(browser, user.email);
    await expectNotices(user.email, 0);
    return user;
  }

  it('same User-Agent without the cookie: a notice; with it: none; a changed User-Agent with it: none', async () => {
    const laptop = t.client();
    const user = await userKnownTo(laptop);
    expect(laptop.cookie(DEVICE_COOKIE)).toBeTruthy();

    // An attacker with the password and the victim's exact User-Agent, but not the cookie.
    await signIn(t.client(), user.email);
    const mail = await t.mail.waitFor(user.email, { match: isNotice, count: 1, timeoutMs: 15_000 });
    // One sentence a person reads aloud: what happened, to which account, from what.
    expect(mail.text).toContain(`A new sign-in to your account ${user.username} from Firefox on Linux (`);
    expect(mail.text).toContain('This device has not been seen for this account recently.');
    expect(mail.text).not.toMatch(/signed in to from|\bto from\b/);
    expect(mail.text).not.toMatch(/https?:\/\//);

    // The laptop again: known. The laptop after a browser update (another User-Agent): still known.
    await signIn(laptop, user.email);
    await signIn(laptop, user.email, SAFARI_IPHONE);
    await expectNotices(user.email, 1);

    const events = (await storedEvents(t, user.id)).filter((e) => e.type === 'sign_in');
    expect(events.map((e) => e.detail.new_device)).toEqual([true, true, false, false]);
  });

  it('a tampered cookie counts as absent', async () => {
    const laptop = t.client();
    const user = await userKnownTo(laptop);
    const value = laptop.cookie(DEVICE_COOKIE)!;
    const [version, browserId, entry] = value.split('.');
    const [day, tag] = entry!.split('_');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1);
    const tampered = [
      [version, browserId, `${day}_${flip(tag!, 5)}`], // the tag
      [version, flip(browserId!, 3), entry], // the browser id
      [version, browserId, `${(parseInt(day!, 36) + 1).toString(36)}_${tag}`], // the day
      ['v2', browserId, entry], // the version
      [value.slice(0, -1)], // cut short
      ['garbage'],
    ].map((parts) => parts.join('.'));
    for (const [i, forged] of tampered.entries()) {
      const browser = t.client();
      browser.cookies.set(DEVICE_COOKIE, forged);
      await signIn(browser, user.email);
      await expectNotices(user.email, i + 1, forged);
    }
    // The untouched value still works from any client that carries it.
    const copy = t.client();
    copy.cookies.set(DEVICE_COOKIE, value);
    await signIn(copy, user.email);
    await expectNotices(user.email, tampered.length);
  });

  it("another account's cookie is a new device; one browser carries several accounts", async () => {
    const shared = t.client();
    const alice = await userKnownTo(shared);
    const bob = await t.createUser();
    await signIn(t.client(), bob.email); // Bob's first sign-in, elsewhere: no notice.
    await expectNotices(bob.email, 0);

    // The browser knows Alice only: Bob signing in there is new to Bob.
    await signIn(shared, bob.email);
    await expectNotices(bob.email, 1);
    // A browser holding only Alice's entry, copied, is new to Bob too.
    const aliceOnly = t.client();
    const aliceBrowser = t.client();
    await signIn(aliceBrowser, alice.email);
    aliceOnly.cookies.set(DEVICE_COOKIE, aliceBrowser.cookie(DEVICE_COOKIE)!);
    await signIn(aliceOnly, bob.email);
    await expectNotices(bob.email, 2);
    await expectNotices(alice.email, 1); // aliceBrowser was new to Alice

    // The shared browser now carries both: signing in to either is no news.
    await signIn(shared, alice.email);
    await signIn(shared, bob.email);
    await signIn(shared, alice.email);
    await expectNotices(alice.email, 1);
    await expectNotices(bob.email, 2);
    expect(shared.cookie(DEVICE_COOKIE)!.split('.')).toHaveLength(4); // version, browser id, 2 entries
  });

  it('an entry older than 90 days is a new device again; the cookie is HttpOnly, Lax, a year long, and names no account', async () => {
    const laptop = t.client();
    const user = await userKnownTo(laptop);
    const res = await signIn(laptop, user.email);
    const header = ([] as string[])
      .concat((res.headers['set-cookie'] as string | string[] | undefined) ?? [])
      .find((c) => c.startsWith(`${DEVICE_COOKIE}=`))!;
    expect(header).toMatch(/; Max-Age=31536000/);
    expect(header).toMatch(/; Path=\//);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Lax/);
    expect(header).not.toMatch(/; Secure/); // APP_URL is http here
    const value = laptop.cookie(DEVICE_COOKIE)!;
    // A version, a random browser id, and one entry: a day and a keyed tag. No id, name or address.
    expect(value).toMatch(/^v1\.[A-Za-z0-9_-]{22}\.[0-9a-z]+_[0-9a-f]{32}$/);
    expect(value).not.toContain(user.username);
    await expectNotices(user.email, 0);

    t.clock.advance(89 * 24 * 60 * 60);
    await signIn(laptop, user.email); // within 90 days: known, and refreshed
    t.clock.advance(89 * 24 * 60 * 60);
    await signIn(laptop, user.email);
    await expectNotices(user.email, 0);
    t.clock.advance(91 * 24 * 60 * 60);
    await signIn(laptop, user.email);
    await expectNotices(user.email, 1);
  });

  it('with an https APP_URL the cookie is Secure', async () => {
    const secure = await startTestApp({
      sharedDatabase: t.database,
      sharedMail: t.mail,
      appUrl: 'https://auth.example.com',
    });
    try {
      const user = await secure.createUser();
      const res = await secure.client().post('/login', { email: user.email, password: TEST_PASSWORD });
      const header = ([] as string[])
        .concat((res.headers['set-cookie'] as string | string[] | undefined) ?? [])
        .find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
      expect(header).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });
});
