import { html, type SafeHtml } from '../../http/html/html.ts';
import { csrfField, field, form, layout, servedLinks, signInLink, when } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';
import { CORE_SECURITY_EVENTS, type SecurityEventView, type EventPage } from '../core/security-events.ts';
import type { SessionView } from './sessions.ts';

/** A destructive action: a form with one red button that asks before it submits. */
function dangerForm(
  ctx: PageContext,
  action: string,
  label: string,
  question: string,
  extra: SafeHtml | string = '',
) {
  return html`<form method="post" action="${action}" class="inline" data-confirm="${question}">
    ${csrfField(ctx)}${extra}<button type="submit" class="danger">${label}</button>
  </form>`;
}

function sudoHint(ctx: PageContext, needsSudo: boolean, what: string, back: string) {
  return needsSudo
    ? html`<p class="hint">
        ${what} needs a recent confirmation of your identity. You will be asked for it when you submit, then
        brought back here (<a href="/sudo?next=${encodeURIComponent(back)}">confirm now</a>).
      </p>`
    : '';
}

/** The account home: who you are, the two changes you can make here, and links to every setting. */
/** What the account pages show besides the outcome, loaded by the routes (pages stay pure). */
export interface AccountPageProps {
  user?: { username: string; email: string; created_at: string; has_password: boolean };
  needsSudo: boolean;
  retentionDays: number;
}

export function accountPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const user = ctx.props.user;
  if (!user)
    return layout(ctx, 'Your account', html`<p>${signInLink(ctx, 'Sign in')} to see your account.</p>`);
  const needsSudo = ctx.props.needsSudo;
  const usernameCtx =
    ctx.input.username !== undefined || ctx.errors.username ? ctx : { ...ctx, input: {}, errors: {} };
  const emailCtx =
    ctx.input.email !== undefined || ctx.errors.email ? ctx : { ...ctx, input: {}, errors: {} };
  return layout(
    ctx,
    'Your account',
    html`<dl class="facts">
        <dt>Username</dt>
        <dd id="account-username">${user.username}</dd>
        <dt>Email</dt>
        <dd id="account-email">${user.email}</dd>
        <dt>Member since</dt>
        <dd>${when(user.created_at, '')}</dd>
        <dt>Password</dt>
        <dd>${user.has_password ? 'Set' : 'Not set (you sign in with a provider or a link)'}</dd>
      </dl>
      <nav class="settings" aria-label="Account settings">
        ${servedLinks(
          ctx,
          [
            ['/sessions', 'Sessions and devices'],
            ['/account/events', 'Security events'],
            ['/two-factor', 'Two-factor authentication'],
            ['/set-password', user.has_password ? 'Change password' : 'Set a password'],
            ['/tokens', 'Personal access tokens'],
            ['/account/apps', 'Connected apps'],
          ],
          '\n',
        )}
      </nav>
      <section class="card" id="change-username">
        <h2>Change your username</h2>
        <p class="hint">3 to 30 letters, digits and spaces.</p>
        ${form(
          usernameCtx,
          '/account/username',
          field(usernameCtx, {
            name: 'username',
            label: 'New username',
            autocomplete: 'username',
            required: true,
          }),
          'Change username',
        )}
      </section>
      <section class="card" id="change-email">
        <h2>Change your email address</h2>
        <p class="hint">
          We send a link to the new address; it changes when you open it and confirm, signed in to this
          account. We also tell your current address.
        </p>
        ${sudoHint(ctx, needsSudo, 'Changing your email', '/account')}
        ${form(
          emailCtx,
          '/account/email',
          field(emailCtx, {
            name: 'email',
            label: 'New email address',
            type: 'email',
            autocomplete: 'email',
            required: true,
          }),
          'Send confirmation link',
        )}
      </section>
      <section class="card danger-zone" id="delete-account">
        <h2>Delete your account</h2>
        <p>
          This removes your account, sessions, two-factor methods, tokens and everything you created. It
          cannot be undone.
        </p>
        <p><a class="button danger" href="/account/delete">Delete account…</a></p>
      </section>`,
  );
}

export function deleteAccountPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const needsSudo = ctx.user !== null && ctx.props.needsSudo;
  return layout(
    ctx,
    'Delete your account',
    html`<p>
        Deleting <strong>${ctx.user?.username ?? 'your account'}</strong> removes your sessions, two-factor
        methods, access tokens, linked sign-in providers and everything you created. It cannot be undone.
      </p>
      ${sudoHint(ctx, needsSudo, 'Deleting your account', '/account/delete')}
      <div class="actions">
        ${dangerForm(ctx, '/account/delete', 'Delete my account', 'Delete your account for good? This cannot be undone.')}
        <a class="button secondary" href="/account">Keep my account</a>
      </div>`,
  );
}

/**
 * The page the emailed link opens: a confirmation form for the account that asked for the change
 * (the change happens only when it is posted), or why the link cannot be used.
 */
export function emailVerifyPage(ctx: PageContext): SafeHtml {
  const newEmail = ctx.outcome?.data?.new_email;
  const token = ctx.outcome?.fields?.token;
  if (ctx.outcome?.status !== 'error' && typeof newEmail === 'string' && typeof token === 'string')
    return layout(
      ctx,
      'Confirm your new email address',
      html`<p>
          Change the email address of <strong>${ctx.user?.username ?? 'your account'}</strong>
          ${ctx.user ? html`from <strong>${ctx.user.email}</strong> ` : ''}to
          <strong id="new-email">${newEmail}</strong>?
        </p>
        <p class="hint">Nothing changes until you confirm. If you did not ask for this, keep your address.</p>
        <div class="actions">
          ${form(ctx, '/account/email/verify', html`<input type="hidden" name="token" value="${token}" />`, 'Confirm new address')}
          <a class="button secondary" href="/account">Keep my address</a>
        </div>`,
    );
  return layout(
    ctx,
    'Confirm your email address',
    html`<p>
      Ask for a new link from <a href="/account">your account page</a> (you may need to
      ${signInLink(ctx, 'sign in')} first).
    </p>`,
  );
}

function sessionRow(ctx: PageContext, s: SessionView): SafeHtml {
  return html`<li class="session card" data-session-id="${s.id}">
    <div class="session-head">
      <strong>${s.device}</strong>
      ${s.current ? html`<span class="badge">This browser</span>` : ''}
      ${s.remembered ? html`<span class="badge muted">Remembered</span>` : ''}
    </div>
    <dl class="facts compact">
      <dt>Signed in</dt>
      <dd>${when(s.created_at, '')}</dd>
      <dt>Last seen</dt>
      <dd>${when(s.last_seen_at, '')}</dd>
      <dt>IP address</dt>
      <dd>${s.ip ?? 'unknown'}</dd>
      <dt>Browser</dt>
      <dd class="wrap">${s.user_agent ?? 'unknown'}</dd>
    </dl>
    ${dangerForm(
      ctx,
      `/sessions/revoke/${s.id}`,
      'Sign out this session',
      s.current ? 'Sign out of this browser?' : `Sign out the session on ${s.device}?`,
    )}
  </li>`;
}

export function sessionsPage(ctx: PageContext): SafeHtml {
  const sessions = (ctx.outcome?.data?.sessions as SessionView[] | undefined) ?? [];
  const others = sessions.filter((s) => !s.current).length;
  return layout(
    ctx,
    'Sessions and devices',
    html`<p>
        Where your account is signed in now. Sign out anything you do not recognise, then change your
        password.
      </p>
      ${
        others > 0
          ? html`<div class="actions">
              ${dangerForm(ctx, '/sessions/revoke-others', `Sign out ${others === 1 ? 'the other session' : `all ${others} other sessions`}`, 'Sign out every other session?')}
            </div>`
          : ''
      }
      <ul class="plain" id="session-list">
        ${sessions.map((s) => sessionRow(ctx, s))}
      </ul>
      <p><a href="/account">Back to your account</a></p>`,
  );
}

/** The end of an account's suspension: a date written out (`2026-12-01 09:30 UTC`); null while it lasts indefinitely. */
function endsAt(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.startsWith('9999-')) return null;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]} UTC` : value;
}

/** A factor id as people say it. */
const FACTOR_NAMES: Record<string, string> = {
  password: 'password',
  totp: 'authenticator app',
  passkey: 'passkey',
  recovery_code: 'recovery code',
};

function factorName(id: unknown): string {
  return typeof id === 'string' ? (FACTOR_NAMES[id] ?? id.replace(/_/g, ' ')) : 'unknown method';
}

/** "Password" from "password": the start of a line. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What happened, in the page's words: a registration is "Account created", not a sign-in. */
export function eventLabel(event: Pick<SecurityEventView, 'type' | 'detail'> & { label?: string }): string {
  const { type, detail } = event;
  if (type === 'sign_in' && detail.registration === true) return 'Account created';
  if (type === 'sign_in' && detail.method === 'remember') return 'Signed in again (remembered browser)';
  if (type === 'password_changed' && detail.first === true) return 'Password set';
  // The label its declaration gives (the core's or a plugin's `events`).
  return (
    event.label ??
    (CORE_SECURITY_EVENTS as Record<string, string>)[type] ??
    capitalized(type.replace(/_/g, ' '))
  );
}

/** The event's facts as short phrases ("Firefox on Linux", "from Ada to Ada King"), never raw keys. */
export function eventDetails(event: Pick<SecurityEventView, 'type' | 'detail'>): string[] {
  const d = event.detail;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const phrases: (string | null | false)[] = [];
  switch (event.type) {
    case 'sign_in':
      phrases.push(
        text(d.device),
        d.registration === true && 'signed in',
        d.method !== 'remember' && d.remembered === true && 'kept signed in',
        d.registration !== true && d.new_device === true && 'new device',
      );
      break;
    case 'sign_in_failed':
      phrases.push(
        d.method === 'password' ? 'wrong password' : d.method === 'passkey' ? 'passkey not accepted' : null,
      );
      break;
    case 'email_change_requested':
      phrases.push(text(d.new_email) && `to ${d.new_email}`);
      break;
    case 'email_changed':
    case 'username_changed':
      phrases.push(text(d.from) && text(d.to) && `from ${d.from} to ${d.to}`);
      break;
    case 'factor_enrolled':
    case 'factor_removed':
      phrases.push(
        d.factor !== undefined && capitalized(factorName(d.factor)),
        d.required === true && 'set up when two-factor became required',
      );
      break;
    case 'recovery_codes_regenerated':
      phrases.push(typeof d.count === 'number' && `${d.count} new codes, the old ones no longer work`);
      break;
    case 'token_created':
      phrases.push(
        text(d.name),
        text(d.abilities) && `may ${String(d.abilities).split(' ').join(', ')}`,
        d.via === 'token' && 'created with another access token',
      );
      break;
    case 'token_revoked':
      phrases.push(d.via === 'logout' ? 'signed out with it' : null);
      break;
    case 'session_revoked':
      phrases.push(
        d.others === true
          ? typeof d.count === 'number' &&
              `${d.count === 1 ? 'the other session' : `all ${d.count} other sessions`}`
          : text(d.device),
      );
      break;
    case 'sudo_elevated':
      phrases.push(d.factor !== undefined && `with your ${factorName(d.factor)}`);
      break;
    case 'second_factor_locked':
      phrases.push(
        typeof d.failures === 'number' &&
          typeof d.window_minutes === 'number' &&
          `${d.failures} wrong codes within ${d.window_minutes} minutes`,
      );
      break;
    case 'account_disabled': {
      const until = endsAt(d.until);
      phrases.push(
        text(d.reason) ? `disabled by an administrator: ${d.reason}` : 'disabled by an administrator',
        until ? `until ${until}` : 'until an administrator enables it again',
      );
      break;
    }
    case 'account_enabled':
      phrases.push('enabled again by an administrator');
      break;
    case 'signed_out_by_admin':
      phrases.push('every session and remembered browser signed out by an administrator');
      break;
    case 'impersonation_started': {
      const until = endsAt(d.until);
      phrases.push('an administrator started acting as you', until && `until ${until} at the latest`);
      break;
    }
    case 'impersonation_ended':
      phrases.push(
        d.reason === 'expired'
          ? 'the time allowed ran out'
          : d.reason === 'stopped'
            ? 'the administrator stopped'
            : d.reason === 'signed_out'
              ? 'the session was signed out'
              : null,
      );
      break;
    default:
      // A type this page does not know: its plain facts, with readable names.
      for (const [key, value] of Object.entries(d))
        if (value !== null && value !== '') phrases.push(`${key.replace(/_/g, ' ')}: ${String(value)}`);
  }
  return phrases.filter((phrase): phrase is string => typeof phrase === 'string' && phrase !== '');
}

/** One line of facts under an event: its phrases, then the address it came from. */
function describeDetail(event: SecurityEventView): string {
  const phrases = eventDetails(event);
  if (phrases.length > 0) phrases[0] = capitalized(phrases[0]!);
  if (event.ip) phrases.push(`IP\u00a0${event.ip}`);
  return phrases.join(' · ');
}

export function eventsPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const data = ctx.outcome?.data as EventPage | undefined;
  const events = data?.events ?? [];
  const pagination = data?.pagination;
  const link = (page: number | null | undefined, label: string, rel: string) =>
    page
      ? html`<a href="/account/events?page=${page}&amp;limit=${pagination?.limit ?? 20}" rel="${rel}"
          >${label}</a
        >`
      : '';
  return layout(
    ctx,
    'Security events',
    html`<p>
        Sign-ins and changes to your account, newest first. They are kept for ${ctx.props.retentionDays} days.
      </p>
      ${
        events.length === 0
          ? html`<p>No events yet.</p>`
          : html`<ol class="plain events" id="event-list">
              ${events.map(
                (e) =>
                  html`<li class="event" data-event-type="${e.type}">
                    <div><strong>${eventLabel(e)}</strong> · ${when(e.created_at, '')}</div>
                    <div class="hint wrap">${describeDetail(e)}</div>
                  </li>`,
              )}
            </ol>`
      }
      ${
        pagination && (pagination.prevPage || pagination.nextPage)
          ? html`<nav class="pager" aria-label="Pages">
              ${link(pagination.prevPage, 'Newer', 'prev')}
              <span>Page ${pagination.page} of ${pagination.totalPages}</span
              >${link(pagination.nextPage, 'Older', 'next')}
            </nav>`
          : ''
      }
      <p><a href="/account">Back to your account</a></p>`,
  );
}
