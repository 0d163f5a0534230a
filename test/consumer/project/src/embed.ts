// Embedding through the Fetch API, as a host application would: createFetchHandler() under /auth,
// getCaller() on the host's side, a custom mail service and one replaced message.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strict as assert } from 'node:assert';
import {
  createFetchHandler,
  getCaller,
  type EmailTemplates,
  type MailService,
  type OutgoingEmail,
  type ResolvedCaller,
} from 'citadel';
import { html } from 'citadel/html';

export async function embedProgram(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'citadel-consumer-embed-'));
  const sent: OutgoingEmail[] = [];
  const mail: MailService = {
    async send(message) {
      sent.push(message);
    },
  };
  const emails: EmailTemplates = {
    magicLink: (props) => ({
      subject: `Your link, ${props.username}`,
      html: html`<p>Hello ${props.username}: <a href="${props.url}">sign in</a></p>`,
    }),
  };
  const citadel = createFetchHandler({
    env: {},
    databaseUrl: `sqlite:${join(dataDir, 'embed.sqlite')}`,
    sessionSecret: 'consumer-embed-secret-consumer-embed-secret',
    dataDir,
    logLevel: 'silent',
    appUrl: 'http://localhost:4000',
    basePath: '/auth',
    mail,
    emails,
  });
  try {
    await citadel.ready();
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const registered = await citadel(
      new Request('http://localhost:4000/auth/register', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          username: 'grace',
          email: 'grace@example.com',
          password: 'correct horse battery',
          password_confirm: 'correct horse battery',
        }),
      }),
      { clientAddress: '192.0.2.10' },
    );
    assert.equal(registered.status, 201, await registered.clone().text());
    const session = registered.headers.getSetCookie().find((c) => c.startsWith('citadel_session='));
    assert.ok(session, 'the session cookie is set');
    const cookie = session.split(';')[0]!;

    const me = await citadel(new Request('http://localhost:4000/auth/me', { headers: { ...json, cookie } }));
    assert.equal(((await me.json()) as { user: { username: string } }).user.username, 'grace');

    // The host's side: who is calling, from a Request or its Headers.
    const caller: ResolvedCaller | null = await getCaller(
      new Request('http://localhost:4000/dashboard', { headers: { cookie } }),
    );
    assert.equal(caller?.user.username, 'grace');
    assert.equal(caller?.token, undefined);
    assert.equal((await citadel.getCaller(new Headers())) ?? null, null);

    const link = await citadel(
      new Request('http://localhost:4000/auth/magic-link', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: 'grace@example.com' }),
      }),
    );
    assert.ok(link.status < 300, `magic link: ${link.status}`);
    const message = sent.find((m) => m.kind === 'magicLink');
    assert.ok(message, 'the custom mail service received the magic link');
    assert.equal(message.subject, 'Citadel: Your link, grace');
    assert.match(message.html, /Hello grace: <a href="http:\/\/localhost:4000\/auth\/magic-link\/verify\//);
    assert.equal(message.to, 'grace@example.com');

    const missing = await citadel(new Request('http://localhost:4000/auth/nothing-here', { headers: json }));
    assert.equal(missing.status, 404);
    console.log('consumer program: createFetchHandler, getCaller and a custom mail service passed');
  } finally {
    await citadel.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
