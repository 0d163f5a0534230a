// Dialect-independent: pages and emails written in each language, compared with English; `npm test` runs it with the first database only.
/**
 * Every page and every email in German, French and Arabic next to the same page or email in
 * English: a text a person reads that is still the English one fails, unless it is data (a name,
 * an address, a number) or a word that language writes the same. The pages are the server's GET
 * routes that answer HTML, fetched as a visitor, a member, an administrator in sudo and in the
 * middle of a sign-in; the emails are every kind of `EMAIL_KINDS` and the organizations' own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import type { TestClient, TestResponse } from '../support/client.ts';
import { codeIn, linkIn, type CapturedMail } from '../support/mail.ts';
import { enrollTotp, nextStep, totpCode } from '../support/factors.ts';
import { routePatterns } from '../support/routes.ts';
import { visibleTexts } from '../support/visible-text.ts';
import { EMAIL_KINDS, type EmailKind, type EmailTemplates } from '../../src/index.ts';
import { builtInPages, type PageName, type PageReplacements } from '../../src/auth/pages.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';
import { notify } from '../../src/auth/core/notify.ts';
import { NOTIFICATION_IDS } from '../../src/auth/core/account-settings.ts';
import { requestEmailChange } from '../../src/auth/account-center/email-change.ts';
import { createClient } from '../../src/auth/oauth-provider/clients.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import { acceptTermsAction } from '../../examples/blog/actions/accept-terms.ts';

const LANGUAGES = ['de', 'fr', 'ar'] as const;
type Language = (typeof LANGUAGES)[number];

/** Words a language writes as English does (the catalogs' own test lists them too). */
const SAME_WORDS: Readonly<Record<Language, readonly string[]>> = {
  de: ['Name', 'Passkeys', 'Code', 'Browser', 'Status'],
  fr: ['Actions', 'Passkeys', 'Code'],
  ar: [],
};

/** The language switcher names each language in itself, the same on every page. */
const LANGUAGE_NAMES = new Set(['English', 'Deutsch', 'Français', 'العربية']);

/** Names of products and protocols a page mentions, the same in every language. */
const PRODUCT_NAMES = ['Google Authenticator', 'OpenID Connect'];

/**
 * GET routes that are not pages a person reads: machine answers, files, and the API explorer
 * (Swagger UI, whose interface is its authors' English).
 */
const NOT_PAGES = [
  /^\/(healthz|readyz|me|endpoints)$/,
  /^\/assets\//,
  /^\/\.well-known\//,
  /^(\/api\/v\d+)?\/docs(\/|$)/,
  /^\/api\//,
  /^\/oauth2\/(userinfo|end-session)$/,
];

/** GET routes that end something (the session, a sign-in in progress): only a visitor walks them. */
const ENDINGS = [/^\/logout$/, /^\/action\/cancel$/];

/** One person's view of the server: a cookie jar, and who it is. */
interface Caller {
  name: string;
  client: () => TestClient;
}

/** The data the pages show (user-entered, the same in every language), not a text of Citadel. */
const data = new Set<string>();

/** A text made of data and the brand only (a post's title in the page title, an address in quotes). */
function isData(text: string): boolean {
  let rest = text;
  for (const value of [...data, 'Citadel']) rest = rest.split(value).join(' ');
  return !/\p{L}{2}/u.test(rest);
}

/** The texts of `texts` that are still the English text of the same page or email. */
function englishLeftovers(texts: Set<string>, english: Set<string>, language: Language): string[] {
  const found = [...texts].filter(
    (text) =>
      english.has(text) &&
      /\p{L}{2}/u.test(text) &&
      !isData(text) &&
      !LANGUAGE_NAMES.has(text) &&
      !SAME_WORDS[language].includes(text) &&
      !/^\S+@\S+$/.test(text) &&
      !/^https?:\/\//.test(text) &&
      // A token, a client id, a code: letters and digits in one word; an algorithm (RS256).
      !/^(?=.*\d)[\w-]{12,}$/.test(text) &&
      !/^[A-Z]+\d+$/.test(text),
  );
  // English words inside a translated sentence ("Firefox on Linux" in a German line).
  const englishPhrases = new Set([...english].flatMap(phrases));
  for (const text of texts)
    if (!found.includes(text))
      for (const phrase of phrases(text)) if (englishPhrases.has(phrase)) found.push(`${text} (“${phrase}”)`);
  return found;
}

/**
 * Each pair of neighbouring words of a text, within one clause: punctuation ends a run, and so do
 * data, names and codes (a word with a digit, `:`, `_`, `/`, `@` or an inner dot: posts:read,
 * client_id, rp.example.com, 1Password; a word in capitals: SPA, TOTP).
 */
function phrases(text: string): string[] {
  let rest = text;
  for (const value of [...data, ...LANGUAGE_NAMES, ...PRODUCT_NAMES]) rest = rest.split(value).join(' · ');
  const words: (string | null)[] = [];
  for (const token of rest.split(/\s+/)) {
    const word = token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
    if (/^[^\p{L}]/u.test(token)) words.push(null);
    words.push(word === '' || /[\d:_/@]|\.\p{L}/u.test(token) || /^\p{Lu}{2,}$/u.test(word) ? null : word);
    if (/[^\p{L}]$/u.test(token)) words.push(null);
  }
  const runs: string[] = [];
  for (let i = 0; i + 2 <= words.length; i++)
    if (words[i] && words[i + 1]) runs.push(`${words[i]} ${words[i + 1]}`);
  return runs;
}

describe('every page and every email in each shipped language', () => {
  let t: TestApp;
  const renderedPages = new Set<PageName>();
  /** Each message sent, by recipient and subject: its kind (from the `emails` hook). */
  const sentKinds: { kind: EmailKind; to: string; subject: string }[] = [];

  // Each built-in page, wrapped to note that it was rendered (the registry is the list).
  const recorders = Object.fromEntries(
    Object.entries(builtInPages).map(([name, page]) => [
      name,
      (ctx: never) => {
        renderedPages.add(name as PageName);
        return (page as (ctx: never) => unknown)(ctx);
      },
    ]),
  ) as PageReplacements;
  const kindRecorders = Object.fromEntries(
    EMAIL_KINDS.map((kind) => [
      kind,
      (props: { to: string }, defaults: { subject: string }) => {
        sentKinds.push({ kind, to: props.to, subject: defaults.subject });
        return {};
      },
    ]),
  ) as EmailTemplates;

  beforeAll(async () => {
    t = await startTestApp({
      api: blogApi,
      migrations: blogMigrations,
      plugins: blogPlugins,
      actions: [acceptTermsAction],
      loginActions: ['email_2fa', 'accept_terms'],
      registerActions: ['email_activation'],
      registerHideExisting: true,
      pages: recorders,
      emails: kindRecorders,
    });
  }, 60_000);
  afterAll(async () => t?.close());

  /** Signs `user` in through every step of the sign-in, calling `atStep` on each step's page. */
  async function signInThroughSteps(
    user: UserRecord,
    atStep: (client: TestClient, action: string) => Promise<void> = async () => {},
    totpSecret?: string,
  ): Promise<TestClient> {
    const client = t.client();
    const hasCode = (mail: CapturedMail) => /\b\d{6}\b/.test(mail.text);
    const codes = t.mail.to(user.email).filter(hasCode).length;
    let answer = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    for (let step = 0; answer.body?.action !== 'action.success'; step++) {
      expect(step, answer.text).toBeLessThan(5);
      const shown = await client.get('/action/show');
      expect(shown.status, shown.text).toBe(200);
      const action = shown.body.data.action as string;
      await atStep(client, action);
      const fields =
        action === 'email_2fa'
          ? { code: codeIn(await t.mail.waitFor(user.email, { count: codes + 1, match: hasCode })) }
          : action === 'two_factor'
            ? { factor: 'totp', proof: totpCode(t, totpSecret!) }
            : { accept: true };
      answer = await client.post('/action/handle', fields);
      expect(answer.status, answer.text).toBeLessThan(300);
    }
    return client;
  }

  /** `url` in `language`, following the server's own redirects (a page may send to sudo or to sign in). */
  async function fetchPageFollowing(
    client: TestClient,
    url: string,
    language: string,
  ): Promise<TestResponse> {
    let next = `${url}${url.includes('?') ? '&' : '?'}lang=${language}`;
    for (let hop = 0; ; hop++) {
      const response = await client.get(next, 'form');
      const location = response.location;
      if (!location || hop === 5 || response.status < 300 || response.status >= 400) return response;
      const target = new URL(location, 'http://localhost:3000');
      if (target.origin !== 'http://localhost:3000') return response;
      next = target.pathname + target.search;
    }
  }

  let pagesChecked = 0;

  /**
   * The English leftovers of one page (as `caller`), per language; none when it is no page. With
   * `form`, the page is the answer to posting it (a refused form shows its messages).
   */
  async function checkPage(caller: Caller, url: string, form?: Record<string, string>): Promise<string[]> {
    const fetchPage = form
      ? (client: TestClient, path: string, language: string) =>
          client.post(`${path}?lang=${language}`, form, 'form')
      : fetchPageFollowing;
    const english = await fetchPage(caller.client(), url, 'en');
    if (!String(english.headers['content-type'] ?? '').startsWith('text/html')) return [];
    pagesChecked += 1;
    const englishTexts = visibleTexts(english.text);
    const found: string[] = [];
    for (const language of LANGUAGES) {
      const page = await fetchPage(caller.client(), url, language);
      expect(page.text, `${caller.name} ${url}`).toContain(`<html lang="${language}"`);
      for (const text of englishLeftovers(visibleTexts(page.text), englishTexts, language))
        found.push(`${language} ${caller.name} ${url}: "${text}"`);
    }
    return found;
  }

  it('pages: no text is still the English one, and every page of the registry was walked', async () => {
    const admin = await t.createUser({
      username: 'Olivia Admin',
      email: 'olivia@example.com',
      emailVerified: true,
    });
    const member = await t.createUser({
      username: 'Gustav Member',
      email: 'gustav@example.com',
      emailVerified: true,
    });
    await grantAdminRole(t.services.db, admin.email);
    // What the fixtures enter, the test client's User-Agent (shown as the device), and the demo's
    // own organization role (an application's role is named in its configuration).
    for (const value of [
      'Olivia Admin',
      'Gustav Member',
      'Northwind Traders',
      'northwind-traders',
      'Relying Party',
      'Spring notes',
      'Nora Newcomer',
      'lightMyRequest',
      'viewer',
    ])
      data.add(value);

    const leftovers: string[] = [];
    const visitor: Caller = { name: 'visitor', client: () => t.client() };

    // In the middle of a sign-in: each step's page, in each language.
    const adminClient = await signInThroughSteps(admin, async (client, action) => {
      leftovers.push(
        ...(await checkPage({ name: `at step ${action}`, client: () => client }, '/action/show')),
      );
    });
    const sudo = await adminClient.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(sudo.status, sudo.text).toBe(200);
    const memberClient = await signInThroughSteps(member);
    // The member has an authenticator app: a sign-in of theirs has the two-factor step too.
    const { secret } = await enrollTotp(t, memberClient);
    nextStep(t); // the enrolment's code is spent: the sign-in uses the next one
    await signInThroughSteps(
      member,
      async (client, action) => {
        if (action === 'two_factor')
          leftovers.push(
            ...(await checkPage({ name: `at step ${action}`, client: () => client }, '/action/show')),
          );
      },
      secret,
    );
    // A new account's step: the activation code.
    const newcomer = t.client();
    const registered = await newcomer.post('/register', {
      username: 'Nora Newcomer',
      email: 'nora@example.com',
      password: TEST_PASSWORD,
      password_confirm: TEST_PASSWORD,
    });
    expect(registered.body?.action, registered.text).toBe('register.action_required');
    leftovers.push(
      ...(await checkPage({ name: 'at step email_activation', client: () => newcomer }, '/action/show')),
    );
    const administrator: Caller = { name: 'admin in sudo', client: () => adminClient };
    const signedIn: Caller = { name: 'member', client: () => memberClient };

    // What the parameterized routes show: an organization, an invitation, a post, an OAuth client.
    const organization = await adminClient.post('/organizations', { name: 'Northwind Traders' });
    expect(organization.status, organization.text).toBe(201);
    const organizationId = organization.body.data.organization.id as number;
    const invited = await adminClient.post(`/organizations/${organizationId}/invitations`, {
      email: 'invitee@example.com',
      role: 'member',
    });
    expect(invited.status, invited.text).toBe(201);
    const invitationLink = linkIn(
      await t.mail.waitFor('invitee@example.com', { count: 1 }),
      'http://localhost:3000/',
    );
    const post = await adminClient.post('/api/v1/posts', {
      title: 'Spring notes',
      body: 'Spring notes',
      status: 'published',
    });
    expect(post.status, post.text).toBe(201);
    const { client: oauthClient } = await createClient(
      t.services.db,
      {
        client_name: 'Relying Party',
        redirect_uris: ['https://rp.example.com/callback'],
        post_logout_redirect_uris: [],
        application_type: 'web',
        token_endpoint_auth_method: 'client_secret_basic',
        scope: ['openid', 'profile', 'email'],
        id_token_signed_response_alg: 'RS256',
        registration: 'admin',
      },
      t.clock.now(),
    );
    await requestEmailChange(
      t.services,
      member,
      'gustav.new@example.com',
      { ip: null, userAgent: null },
      {
        hideExisting: false,
      },
    );
    // A visitor's emailed links: a new password, a sign-in by email (their pages are forms first).
    const linkTo = async (path: string, ask: string) => {
      await t.client().post(ask, { email: admin.email });
      await t.mail.settled();
      const mail = t.mail.to(admin.email).findLast((m) => m.text.includes(`http://localhost:3000${path}`));
      expect(mail, path).toBeDefined();
      const url = new URL(linkIn(mail!, `http://localhost:3000${path}`));
      return url.pathname + url.search;
    };
    const resetLink = await linkTo('/reset-password', '/forgot-password');
    const magicLink = await linkTo('/magic-link/verify/', '/magic-link');
    const emailChangeLink = linkIn(
      await t.mail.waitFor('gustav.new@example.com', { count: 1 }),
      'http://localhost:3000/',
    );

    /** A value for each parameterized route; a new one without a value fails below. */
    const filled: Record<string, string> = {
      '/magic-link/verify/:token': magicLink,
      '/my/posts/:id/edit': `/my/posts/${post.body.data.id}/edit`,
      '/posts/:id': `/posts/${post.body.data.id}`,
      '/oauth/callback/:provider': '/oauth/callback/github',
      '/oauth/:provider': '/oauth/github',
      '/organizations/invitations/links/:token': new URL(invitationLink).pathname,
      '/organizations/invitations/:token': '/organizations/invitations/no-such-token',
      '/organizations/:id': `/organizations/${organizationId}`,
      '/organizations/:id/invitations': `/organizations/${organizationId}/invitations`,
      '/account/email/verify/:token': new URL(emailChangeLink).pathname,
      '/admin/users/:id': `/admin/users/${member.id}`,
      '/admin/oauth/clients/:client_id': `/admin/oauth/clients/${oauthClient.client_id}`,
    };
    /** Pages a route shows only with a query: a form's state, an authorization request. */
    const withQueries = [
      resetLink,
      '/reset-password?token=no-such-token',
      '/sudo?next=%2Ftwo-factor',
      '/two-factor?setup=totp',
      '/no-such-page',
      `/oauth2/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: oauthClient.client_id,
        redirect_uri: 'https://rp.example.com/callback',
        scope: 'openid profile email',
        state: 'state-1',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGcSFbZVL0',
        code_challenge_method: 'S256',
      })}`,
    ];

    const unfilled: string[] = [];
    const urls: string[] = [];
    for (const [method, pattern] of routePatterns(t.app)) {
      if (method !== 'GET' || NOT_PAGES.some((skip) => skip.test(pattern))) continue;
      if (!pattern.includes(':')) urls.push(pattern);
      else if (filled[pattern]) urls.push(filled[pattern]);
      else unfilled.push(pattern);
    }
    expect(unfilled, 'parameterized routes without a value to fetch').toEqual([]);
    urls.push(...withQueries);

    for (const caller of [visitor, signedIn, administrator])
      for (const url of urls) {
        if (caller !== visitor && ENDINGS.some((ending) => ending.test(url))) continue;
        leftovers.push(...(await checkPage(caller, url)));
      }
    // Refused forms, shown again with their messages; the blog's writes are refused by its API.
    const draft = await adminClient.post('/api/v1/posts', {
      title: 'Winter draft',
      body: 'Winter draft',
      status: 'draft',
    });
    expect(draft.status, draft.text).toBe(201);
    data.add('Winter draft');
    const refusals: [Caller, string, Record<string, string>][] = [
      [visitor, '/login', { email: 'nobody@example.com', password: 'not the password' }],
      [
        visitor,
        '/register',
        { username: '', email: 'not an address', password: 'short', password_confirm: 'x' },
      ],
      [signedIn, '/my/posts', { title: 'x', body: '', status: 'draft' }],
      [signedIn, `/posts/${draft.body.data.id}/comments`, { body: 'Nice' }],
    ];
    for (const [caller, url, form] of refusals) leftovers.push(...(await checkPage(caller, url, form)));
    // The blog API's own refusal of that comment, in the reader's language.
    const refused = await memberClient.post('/api/v1/comments?lang=de', {
      post_id: draft.body.data.id,
      author_name: 'Gustav Member',
      body: 'Nice',
    });
    expect(refused.status, refused.text).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('ist kein Beitrag, den Sie sehen können');
    // About 135 HTML pages (caller × URL), each in 4 languages: far fewer means a caller lost its session.
    expect(pagesChecked).toBeGreaterThan(120);

    expect.soft(leftovers).toEqual([]);
    const unrendered = Object.keys(builtInPages).filter((name) => !renderedPages.has(name as PageName));
    expect(unrendered, 'built-in pages no fetch rendered').toEqual([]);
  }, 120_000);

  it('emails: every kind, and the organizations’ invitation, in the recipient’s language', async () => {
    const origin = {
      ip: '192.0.2.1',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    };
    for (const language of ['en', ...LANGUAGES]) {
      const user = await t.createUser({
        username: `reader-${language}`,
        email: `reader-${language}@example.com`,
        emailVerified: true,
      });
      const owner = await t.createUser({
        username: `owner-${language}`,
        email: `owner-${language}@example.com`,
        emailVerified: true,
      });
      data.add(user.username).add(owner.username);
      for (const someone of [user, owner])
        await t.services.db
          .updateTable('users')
          .set({ locale: language })
          .where('id', '=', someone.id)
          .execute();
      const reader = { ...user, locale: language };
      const asked = { headers: { 'accept-language': language } };
      await t.client().post('/forgot-password', { email: user.email }, 'json', asked);
      await t.client().post('/magic-link', { email: user.email }, 'json', asked);
      await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', asked);
      // A new account (no language yet: the request's), and one that takes a taken address.
      await t.client().post(
        '/register',
        {
          username: `newcomer ${language}`,
          email: `new-${language}@example.com`,
          password: TEST_PASSWORD,
          password_confirm: TEST_PASSWORD,
        },
        'json',
        asked,
      );
      await t.client().post(
        '/register',
        {
          username: `again ${language}`,
          email: user.email,
          password: TEST_PASSWORD,
          password_confirm: TEST_PASSWORD,
        },
        'json',
        asked,
      );
      await requestEmailChange(t.services, reader, `moved-${language}@example.com`, origin, {
        hideExisting: false,
      });
      await requestEmailChange(t.services, reader, owner.email, origin, { hideExisting: true });
      for (const id of NOTIFICATION_IDS)
        await notify(t.services, reader, id, {
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
          ip: '192.0.2.1',
          subject: 'TOTP',
        });
    }
    // The organizations' invitation (no kind of its own): in the inviter's language.
    for (const language of ['en', ...LANGUAGES]) {
      const owner = (await t.services.users.findByEmail(`owner-${language}@example.com`))!;
      const inviter = await signInThroughSteps(owner);
      const created = await inviter.post('/organizations', { name: `Club ${language}` });
      expect(created.status, created.text).toBe(201);
      data.add(`Club ${language}`);
      const invited = await inviter.post(`/organizations/${created.body.data.organization.id}/invitations`, {
        email: `invitee-${language}@example.com`,
        role: 'member',
      });
      expect(invited.status, invited.text).toBe(201);
    }
    await t.mail.settled();

    const leftovers: string[] = [];
    const messageOf = (kind: EmailKind, language: string): CapturedMail => {
      const sent = sentKinds.filter((s) => s.kind === kind && s.to.includes(`-${language}@`));
      expect(sent.length, `${kind} in ${language}`).toBeGreaterThan(0);
      const { to, subject } = sent[0]!;
      const mail = t.mail.to(to).find((m) => m.subject.endsWith(subject));
      expect(mail, `${kind} to ${to}`).toBeDefined();
      return mail!;
    };
    const textsOf = (mail: CapturedMail) =>
      new Set([
        mail.subject,
        ...mail.text.split('\n').map((line) => line.trim()),
        ...visibleTexts(mail.html),
      ]);
    for (const kind of EMAIL_KINDS) {
      const english = textsOf(messageOf(kind, 'en'));
      for (const language of LANGUAGES) {
        const mail = messageOf(kind, language);
        expect(mail.html, kind).toContain(`lang="${language}"`);
        for (const text of englishLeftovers(textsOf(mail), english, language))
          leftovers.push(`${language} ${kind}: "${text}"`);
      }
    }
    const invitationTexts = textsOf(t.mail.to('invitee-en@example.com')[0]!);
    for (const language of LANGUAGES) {
      const mail = t.mail.to(`invitee-${language}@example.com`)[0]!;
      expect(mail.html, 'invitation').toContain(`lang="${language}"`);
      for (const text of englishLeftovers(textsOf(mail), invitationTexts, language))
        leftovers.push(`${language} invitation: "${text}"`);
    }
    expect(leftovers).toEqual([]);
  }, 60_000);
});
