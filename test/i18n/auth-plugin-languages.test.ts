import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { escapeHtml } from '../../src/core/html.ts';
import type { MessageCatalog } from '../../src/core/i18n/catalog.ts';
import { accountsMessages } from '../../src/auth/accounts/messages/index.ts';
import { magicLinkMessages } from '../../src/auth/magic-link/messages/index.ts';
import { sudoMessages } from '../../src/auth/sudo/messages/index.ts';
import { tokensMessages } from '../../src/auth/tokens/messages/index.ts';
import { factorsMessages } from '../../src/auth/factors/messages/index.ts';
import { pipelineMessages } from '../../src/auth/pipeline/messages/index.ts';
import { socialMessages } from '../../src/auth/social/messages/index.ts';

/**
 * The sign-in plugins' pages, answers and emails in German and Arabic: each shows its catalog's
 * text in the language asked for (`?lang=`, then the cookie it leaves), never the English one.
 */
describe('sign-in plugins in the reader’s language', () => {
  let t: TestApp;
  /** Asks for an emailed code after the password. */
  let coded: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    coded = await startTestApp({ loginActions: ['email_2fa'] });
  });
  afterAll(async () => {
    await t?.close();
    await coded?.close();
  });

  /** A catalog's message in `lang`, and in English, as a page writes it (HTML-escaped). */
  function texts<E extends Record<string, unknown>>(
    catalog: MessageCatalog,
    lang: string,
    key: keyof E & string,
    params?: unknown,
  ) {
    const text = catalog.text(key, params as never);
    return { shown: text.in(t.services.languages.get(lang)), english: String(text) };
  }

  const PAGES = [
    { path: '/login', catalog: accountsMessages, key: 'login.passkey', signedIn: false },
    { path: '/register', catalog: accountsMessages, key: 'register.already', signedIn: false },
    { path: '/forgot-password', catalog: accountsMessages, key: 'forgot.intro', signedIn: false },
    { path: '/magic-link', catalog: magicLinkMessages, key: 'page.intro', signedIn: false },
    { path: '/magic-link/sent', catalog: magicLinkMessages, key: 'sent.nothing', signedIn: false },
    { path: '/sudo', catalog: sudoMessages, key: 'page.title', signedIn: true },
    { path: '/tokens', catalog: tokensMessages, key: 'page.createTitle', signedIn: true },
    { path: '/two-factor', catalog: factorsMessages, key: 'passkeys.add', signedIn: true },
  ] as const;

  for (const lang of ['de', 'ar']) {
    it(`${lang}: each page shows its own texts in ${lang}`, async () => {
      const anonymous = t.client();
      const signedIn = await t.signIn(await t.createUser());
      for (const { path, catalog, key, signedIn: needsUser } of PAGES) {
        const page = await (needsUser ? signedIn : anonymous).get(`${path}?lang=${lang}`, 'form');
        expect(page.status, path).toBe(200);
        const { shown, english } = texts(catalog, lang, key);
        expect(shown, `${catalog.namespace}.${key}`).not.toBe(english);
        expect(page.text, path).toContain(escapeHtml(shown));
        expect(page.text, path).not.toContain(escapeHtml(english));
        expect(page.text, path).toContain(`<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"`);
      }
    });

    it(`${lang}: answers, validation texts and the emailed code follow the request's language`, async () => {
      const user = await coded.createUser();
      const client = coded.client();
      // The cookie left by ?lang= chooses the language of the JSON answers that follow.
      await client.get(`/login?lang=${lang}`, 'form');
      const wrong = await client.post('/login', { email: user.email, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.errors.credentials).toBe(texts(accountsMessages, lang, 'error.credentials').shown);

      const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
      expect(login.body.action).toBe('login.action_required');
      const mail = await coded.mail.waitFor(user.email, { count: 1 });
      expect(mail.subject).toContain(texts(pipelineMessages, lang, 'email2fa.subject').shown);
      expect(mail.text).toContain(
        texts(pipelineMessages, lang, 'email2fa.intro', { username: user.username }).shown,
      );

      const step = await client.get('/action/show', 'form');
      expect(step.text).toContain(escapeHtml(texts(pipelineMessages, lang, 'email2fa.label').shown));
      expect(step.text).toContain(escapeHtml(texts(pipelineMessages, lang, 'page.resend').shown));
      expect(step.text).not.toContain(escapeHtml(texts(pipelineMessages, lang, 'page.resend').english));

      const malformed = await client.post('/action/handle', { code: '12' });
      expect(malformed.status).toBe(422);
      expect(malformed.body.errors.code).toBe(texts(pipelineMessages, lang, 'code.format').shown);

      const provider = await client.get('/oauth/nobody');
      expect(provider.status).toBe(404);
      expect(provider.body.message).toBe(texts(socialMessages, lang, 'error.unknownProvider').shown);
    });
  }

  it('without a language choice, the same answers are English', async () => {
    const user = await t.createUser();
    const wrong = await t.client().post('/login', { email: user.email, password: 'not the password' });
    expect(wrong.body.errors.credentials).toBe('The email, username or password is incorrect.');
  });
});
