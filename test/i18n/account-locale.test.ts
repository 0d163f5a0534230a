import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { elevate } from '../support/sudo.ts';

const NEW_PASSWORD = 'a brand new passphrase';

describe('the account language (PATCH /account {locale})', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('is null until set, then chosen, shown and followed by pages and answers; null clears it', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const before = await client.get('/account');
    expect(before.status).toBe(200);
    expect(before.body.user).toMatchObject({ id: user.id, locale: null });

    const set = await client.patch('/account', { locale: 'DE' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ action: 'account.locale', status: 'success' });
    expect(set.body.user).toMatchObject({ id: user.id, locale: 'de' });
    expect((await client.get('/account')).body.user.locale).toBe('de');
    const row = await t.services.db
      .selectFrom('users')
      .select('locale')
      .where('id', '=', user.id)
      .executeTakeFirst();
    expect(row?.locale).toBe('de');

    // The account's language wins over ?lang=, the cookie and Accept-Language.
    const page = await client.get('/set-password?lang=fr', 'form', { headers: { 'accept-language': 'ar' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="de" dir="ltr">');
    expect(page.text).toContain('Passwort ändern');
    const refused = await client.post('/set-password', { password: 'short', password_confirm: 'short' });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe('Die Eingaben sind nicht gültig.');
    expect(refused.body.errors.password).toBe('Das Passwort muss mindestens 8 Zeichen lang sein.');

    const cleared = await client.patch('/account', { locale: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.user.locale).toBeNull();
    const english = await client.get('/set-password', 'form', { headers: { 'accept-language': 'en' } });
    // Cleared, the next source decides: the ?lang=fr asked for above was remembered in the cookie.
    expect(client.cookie('citadel_lang')).toBe('fr');
    expect(english.text).toContain('<html lang="fr" dir="ltr">');
  });

  it('the account page offers each language; its form saves the choice, and an empty choice clears it', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const page = await client.get('/account', 'form');
    expect(page.text).toContain('<form method="post" action="/account/locale"');
    expect(page.text).toMatch(/<option\s+value="de"\s+lang="de"\s*>\s*Deutsch\s*<\/option>/);
    expect(page.text).toMatch(/<option\s+value=""\s+selected\s*>/);

    const saved = await client.post('/account/locale', { locale: 'ar' }, 'form');
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe('/account');
    const arabic = await client.get('/account', 'form');
    expect(arabic.text).toContain('<html lang="ar" dir="rtl">');
    expect(arabic.text).toMatch(/<option\s+value="ar"\s+lang="ar"\s+selected\s*>/);

    const refused = await client.post('/account/locale', { locale: 'xx' }, 'form');
    expect(refused.status).toBe(422);
    expect((await client.get('/account')).body.user.locale).toBe('ar');

    const cleared = await client.post('/account/locale', { locale: '' }, 'form');
    expect(cleared.status).toBe(303);
    expect((await client.get('/account')).body.user.locale).toBeNull();
  });

  it('refuses a language without a catalog: 422 errors.locale, nothing stored', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    for (const locale of ['xx', 'de-', 'klingon-tlh', 'x'.repeat(36), 42, ['de']]) {
      const response = await client.patch('/account', { locale });
      expect(response.status, JSON.stringify(locale)).toBe(422);
      expect(response.body.errors.locale, JSON.stringify(locale)).toEqual(expect.any(String));
    }
    expect((await client.get('/account')).body.user.locale).toBeNull();
  });

  it('needs a signed-in session', async () => {
    expect((await t.client().patch('/account', { locale: 'de' })).status).toBe(401);
  });

  it('writes the emails to the account in its language', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.patch('/account', { locale: 'ar' })).status).toBe(200);
    await elevate(client);
    const changed = await client.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.message).toBe('تم تغيير كلمة المرور.');
    const notice = await t.mail.waitFor(user.email, {
      match: (mail) => mail.subject.endsWith('تم تغيير كلمة المرور'),
    });
    expect(notice.text).toContain('أُرسلت هذه الرسالة من');
    expect(notice.text).toContain(`تم تغيير كلمة مرور حسابك ${user.username}`);
    expect(notice.html).toContain('<html lang="ar" dir="rtl">');
  });

  it('writes an email to an account without a language in the language of the request', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const changed = await client.post(
      '/set-password',
      { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      'json',
      { headers: { 'accept-language': 'fr-CA, en;q=0.5' } },
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.message).toBe('Votre mot de passe a été modifié.');
    const notice = await t.mail.waitFor(user.email, {
      match: (mail) => mail.subject.endsWith('Votre mot de passe a été modifié'),
    });
    expect(notice.text).toContain('Si c’était vous');
  });
});
