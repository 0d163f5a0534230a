import { html, type SafeHtml } from '../../http/html.ts';
import { csrfField, field, form, layout, servedLinks, signInLink, when } from '../../http/layout.ts';
import type { PageContext } from '../../http/respond.ts';
import type { SecurityEventView, EventPage } from '../core/security-events.ts';
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
      s.current ? 'Sign out here' : 'Sign out this session',
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

const EVENT_LABELS: Record<string, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  sign_out: 'Signed out',
  password_changed: 'Password changed',
  password_reset: 'Password reset',
  email_change_requested: 'Email change requested',
  email_changed: 'Email changed',
  username_changed: 'Username changed',
  factor_enrolled: 'Two-factor method added',
  factor_removed: 'Two-factor method removed',
  recovery_codes_regenerated: 'New recovery codes',
  token_created: 'Access token created',
  token_revoked: 'Access token revoked',
  session_revoked: 'Session signed out',
  sudo_elevated: 'Identity confirmed',
  second_factor_locked: 'Two-factor locked',
  account_deleted: 'Account deleted',
};

function describeDetail(event: SecurityEventView): string {
  return Object.entries(event.detail)
    .filter(([, v]) => v !== null && v !== '')
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v)}`)
    .join(', ');
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
                    <div><strong>${EVENT_LABELS[e.type] ?? e.type}</strong> · ${when(e.created_at, '')}</div>
                    <div class="hint wrap">${describeDetail(e)}${e.ip ? html` · IP ${e.ip}` : ''}</div>
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
