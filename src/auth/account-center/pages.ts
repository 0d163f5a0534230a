import {
  html,
  type SafeHtml,
  csrfField,
  field,
  form,
  layout,
  servedLinks,
  signInLink,
  when,
  type PageContext,
  CORE_SECURITY_EVENTS,
  type EventPage,
  type SecurityEventView,
  describeDevice,
  type Language,
  englishOnly,
  ownName,
} from '../../plugin-api.ts';
import type { SessionView } from './sessions.ts';
import { accountCenterMessages } from './messages/index.ts';
import type { AccountCenterEnglish } from './messages/en.ts';

type AccountTexts = ReturnType<typeof accountCenterMessages.in>;

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

function sudoHint(
  ctx: PageContext,
  needsSudo: boolean,
  what: 'sudo.hint.email' | 'sudo.hint.delete',
  back: string,
) {
  const t = accountCenterMessages.in(ctx.language);
  return needsSudo
    ? html`<p class="hint">
        ${t(what)} ${t('sudo.hint.after')} (<a href="/sudo?next=${encodeURIComponent(back)}"
          >${t('sudo.hint.now')}</a
        >).
      </p>`
    : '';
}

/** The account home: who you are, the two changes you can make here, and links to every setting. */
/** What the account pages show besides the outcome, loaded by the routes (pages stay pure). */
export interface AccountPageProps {
  user?: {
    username: string;
    email: string;
    created_at: string;
    has_password: boolean;
    locale: string | null;
  };
  needsSudo: boolean;
  retentionDays: number;
}

export function accountPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const t = accountCenterMessages.in(ctx.language);
  const user = ctx.props.user;
  if (!user)
    return layout(
      ctx,
      t('account.title'),
      html`<p>${signInLink(ctx, t('account.signInLink'))} ${t('account.signInToSee')}</p>`,
    );
  const needsSudo = ctx.props.needsSudo;
  const usernameCtx =
    ctx.input.username !== undefined || ctx.errors.username ? ctx : { ...ctx, input: {}, errors: {} };
  const emailCtx =
    ctx.input.email !== undefined || ctx.errors.email ? ctx : { ...ctx, input: {}, errors: {} };
  return layout(
    ctx,
    t('account.title'),
    html`<dl class="facts">
        <dt>${t('account.username')}</dt>
        <dd id="account-username">${user.username}</dd>
        <dt>${t('account.email')}</dt>
        <dd id="account-email">${user.email}</dd>
        <dt>${t('account.memberSince')}</dt>
        <dd>${when(user.created_at, '', ctx.language)}</dd>
        <dt>${t('account.password')}</dt>
        <dd>${user.has_password ? t('account.passwordSet') : t('account.passwordNotSet')}</dd>
      </dl>
      <nav class="settings" aria-label="${t('account.settings')}">
        ${servedLinks(
          ctx,
          [
            ['/sessions', t('account.link.sessions')],
            ['/account/events', t('account.link.events')],
            ['/two-factor', t('account.link.twoFactor')],
            [
              '/set-password',
              user.has_password ? t('account.link.changePassword') : t('account.link.setPassword'),
            ],
            ['/tokens', t('account.link.tokens')],
            ['/account/apps', t('account.link.apps')],
          ],
          '\n',
        )}
      </nav>
      <section class="card" id="change-username">
        <h2>${t('username.title')}</h2>
        <p class="hint">${t('username.hint')}</p>
        ${form(
          usernameCtx,
          '/account/username',
          field(usernameCtx, {
            name: 'username',
            label: t('username.label'),
            autocomplete: 'username',
            required: true,
          }),
          t('username.submit'),
        )}
      </section>
      <section class="card" id="change-email">
        <h2>${t('email.title')}</h2>
        <p class="hint">${t('email.hint')}</p>
        ${sudoHint(ctx, needsSudo, 'sudo.hint.email', '/account')}
        ${form(
          emailCtx,
          '/account/email',
          field(emailCtx, {
            name: 'email',
            label: t('email.label'),
            type: 'email',
            autocomplete: 'email',
            required: true,
          }),
          t('email.submit'),
        )}
      </section>
      ${ctx.languages.length > 1 ? languageForm(ctx, user.locale) : ''}
      <section class="card danger-zone" id="delete-account">
        <h2>${t('delete.title')}</h2>
        <p>${t('delete.intro')}</p>
        <p><a class="button danger" href="/account/delete">${t('delete.link')}</a></p>
      </section>`,
  );
}

/** The account's language: one of the server's, or the request's own choice (empty: null). */
function languageForm(ctx: PageContext, chosen: string | null): SafeHtml {
  const t = accountCenterMessages.in(ctx.language);
  const option = (value: string, label: string) =>
    html`<option
      value="${value}"
      ${value === '' ? '' : html`lang="${value}"`}
      ${(chosen ?? '') === value ? html`selected` : ''}
    >
      ${label}
    </option>`;
  return html`<section class="card" id="change-language">
    <h2>${t('locale.title')}</h2>
    <p class="hint">${t('locale.hint')}</p>
    ${form(
      ctx,
      '/account/locale',
      html`<label for="field-locale">${t('locale.label')}</label>
        <select id="field-locale" name="locale">
          ${option('', t('locale.auto'))}${ctx.languages.map((tag) => option(tag, ownName(tag)))}
        </select>`,
      t('locale.submit'),
    )}
  </section>`;
}

export function deleteAccountPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const t = accountCenterMessages.in(ctx.language);
  const needsSudo = ctx.user !== null && ctx.props.needsSudo;
  return layout(
    ctx,
    t('delete.title'),
    html`<p>${t('delete.pageIntro', { username: ctx.user?.username ?? t('delete.yourAccount') })}</p>
      ${sudoHint(ctx, needsSudo, 'sudo.hint.delete', '/account/delete')}
      <div class="actions">
        ${dangerForm(ctx, '/account/delete', t('delete.submit'), t('delete.question'))}
        <a class="button secondary" href="/account">${t('delete.keep')}</a>
      </div>`,
  );
}

/**
 * The page the emailed link opens: a confirmation form for the account that asked for the change
 * (the change happens only when it is posted), or why the link cannot be used.
 */
export function emailVerifyPage(ctx: PageContext): SafeHtml {
  const t = accountCenterMessages.in(ctx.language);
  const newEmail = ctx.outcome?.data?.new_email;
  const token = ctx.outcome?.fields?.token;
  if (ctx.outcome?.status !== 'error' && typeof newEmail === 'string' && typeof token === 'string')
    return layout(
      ctx,
      t('verify.title'),
      html`<p>
          ${
            ctx.user
              ? t('verify.questionFrom', { username: ctx.user.username, email: ctx.user.email, newEmail })
              : t('verify.question', { username: t('delete.yourAccount'), newEmail })
          }
        </p>
        <p class="hint">${t('verify.hint')}</p>
        <div class="actions">
          ${form(ctx, '/account/email/verify', html`<input type="hidden" name="token" value="${token}" />`, t('verify.submit'))}
          <a class="button secondary" href="/account">${t('verify.keep')}</a>
        </div>`,
    );
  return layout(
    ctx,
    t('verify.invalidTitle'),
    html`<p>${t('verify.askNew')}</p>
      <p><a href="/account">${t('verify.accountPage')}</a> · ${signInLink(ctx, t('verify.signIn'))}</p>`,
  );
}

function sessionRow(ctx: PageContext, s: SessionView): SafeHtml {
  const t = accountCenterMessages.in(ctx.language);
  return html`<li class="session card" data-session-id="${s.id}">
    <div class="session-head">
      <strong>${describeDevice(s.user_agent, ctx.language)}</strong>
      ${s.current ? html`<span class="badge">${t('sessions.thisBrowser')}</span>` : ''}
      ${s.remembered ? html`<span class="badge muted">${t('sessions.remembered')}</span>` : ''}
    </div>
    <dl class="facts compact">
      <dt>${t('sessions.signedIn')}</dt>
      <dd>${when(s.created_at, '', ctx.language)}</dd>
      <dt>${t('sessions.lastSeen')}</dt>
      <dd>${when(s.last_seen_at, '', ctx.language)}</dd>
      <dt>${t('sessions.ip')}</dt>
      <dd>${s.ip ?? t('sessions.unknown')}</dd>
      <dt>${t('sessions.browser')}</dt>
      <dd class="wrap">${s.user_agent ?? t('sessions.unknown')}</dd>
    </dl>
    ${dangerForm(
      ctx,
      `/sessions/revoke/${s.id}`,
      t('sessions.signOut'),
      s.current
        ? t('sessions.signOutThis')
        : t('sessions.signOutOn', { device: describeDevice(s.user_agent, ctx.language) }),
    )}
  </li>`;
}

export function sessionsPage(ctx: PageContext): SafeHtml {
  const sessions = (ctx.outcome?.data?.sessions as SessionView[] | undefined) ?? [];
  const others = sessions.filter((s) => !s.current).length;
  const t = accountCenterMessages.in(ctx.language);
  return layout(
    ctx,
    t('sessions.title'),
    html`<p>${t('sessions.intro')}</p>
      ${
        others > 0
          ? html`<div class="actions">
              ${dangerForm(ctx, '/sessions/revoke-others', t('sessions.signOutOthers', { count: others }), t('sessions.signOutOthersQuestion'))}
            </div>`
          : ''
      }
      <ul class="plain" id="session-list">
        ${sessions.map((s) => sessionRow(ctx, s))}
      </ul>
      <p><a href="/account">${t('back')}</a></p>`,
  );
}

/** The end of an account's suspension: a date written out (`2026-12-01 09:30 UTC`); null while it lasts indefinitely. */
function endsAt(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.startsWith('9999-')) return null;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]} UTC` : value;
}

/** A factor id as people say it. */
const FACTOR_KEYS: Record<string, keyof AccountCenterEnglish> = {
  password: 'factor.password',
  totp: 'factor.totp',
  passkey: 'factor.passkey',
  recovery_code: 'factor.recovery_code',
};

function factorName(t: AccountTexts, id: unknown): string {
  if (typeof id !== 'string') return t('factor.unknown');
  const key = FACTOR_KEYS[id];
  return key ? t(key as 'factor.password') : id.replace(/_/g, ' ');
}

/** The event types this page names itself, in the reader's language. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set(
  Object.keys(accountCenterMessages.en)
    .filter((key) => key.startsWith('event.'))
    .map((key) => key.slice('event.'.length)),
);

/** An organization role by name: the built-in ones in the reader's words, an application's own as named. */
function roleName(t: AccountTexts, role: string): string {
  return role === 'owner' || role === 'admin' || role === 'member' ? t(`role.${role}`) : role;
}

/** "Password" from "password": the start of a line. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What happened, in the page's words: a registration is "Account created", not a sign-in. */
export function eventLabel(
  event: Pick<SecurityEventView, 'type' | 'detail'> & { label?: string },
  language: Language = englishOnly(),
): string {
  const t = accountCenterMessages.in(language);
  const { type, detail } = event;
  if (type === 'sign_in' && detail.registration === true) return t('event.registration');
  if (type === 'sign_in' && detail.method === 'remember') return t('event.remembered');
  if (type === 'password_changed' && detail.first === true) return t('event.passwordSet');
  if (KNOWN_EVENTS.has(type)) return t(`event.${type}` as 'event.sign_in');
  // The label its declaration gives (a plugin's `events`).
  return (
    event.label ??
    (CORE_SECURITY_EVENTS as Record<string, string>)[type] ??
    capitalized(type.replace(/_/g, ' '))
  );
}

/** The event's facts as short phrases ("Firefox on Linux", "from Ada to Ada King"), never raw keys. */
export function eventDetails(
  event: Pick<SecurityEventView, 'type' | 'detail'> & Partial<Pick<SecurityEventView, 'user_agent'>>,
  language: Language = englishOnly(),
): string[] {
  const t = accountCenterMessages.in(language);
  const d = event.detail;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const phrases: (string | null | false)[] = [];
  switch (event.type) {
    case 'sign_in':
      phrases.push(
        // The browser it came from, described in the reader's language (the stored text is English).
        event.user_agent !== undefined ? describeDevice(event.user_agent, language) : text(d.device),
        d.registration === true && t('detail.signedIn'),
        d.method !== 'remember' && d.remembered === true && t('detail.keptSignedIn'),
        d.registration !== true && d.new_device === true && t('detail.newDevice'),
      );
      break;
    case 'sign_in_failed':
      phrases.push(
        d.method === 'password'
          ? t('detail.wrongPassword')
          : d.method === 'passkey'
            ? t('detail.passkeyRefused')
            : null,
      );
      break;
    case 'email_change_requested':
      phrases.push(text(d.new_email) && t('detail.to', { to: String(d.new_email) }));
      break;
    case 'email_changed':
    case 'username_changed':
      phrases.push(
        text(d.from) && text(d.to) && t('detail.fromTo', { from: String(d.from), to: String(d.to) }),
      );
      break;
    case 'factor_enrolled':
    case 'factor_removed':
      phrases.push(
        d.factor !== undefined && capitalized(factorName(t, d.factor)),
        d.required === true && t('detail.requiredSetup'),
      );
      break;
    case 'recovery_codes_regenerated':
      phrases.push(typeof d.count === 'number' && t('detail.newCodes', { count: d.count }));
      break;
    case 'token_created':
      phrases.push(
        text(d.name),
        text(d.abilities) && t('detail.abilities', { abilities: String(d.abilities).split(' ').join(', ') }),
        d.via === 'token' && t('detail.viaToken'),
      );
      break;
    case 'token_revoked':
      phrases.push(d.via === 'logout' ? t('detail.viaLogout') : null);
      break;
    case 'session_revoked':
      phrases.push(
        d.others === true
          ? typeof d.count === 'number' && t('detail.otherSessions', { count: d.count })
          : text(d.device),
      );
      break;
    case 'sudo_elevated':
      phrases.push(d.factor !== undefined && t('detail.withFactor', { factor: factorName(t, d.factor) }));
      break;
    case 'second_factor_locked':
      phrases.push(
        typeof d.failures === 'number' &&
          typeof d.window_minutes === 'number' &&
          t('detail.lockedAfter', { failures: d.failures, minutes: d.window_minutes }),
      );
      break;
    case 'account_disabled': {
      const until = endsAt(d.until);
      const reason = text(d.reason);
      phrases.push(
        reason ? t('detail.disabledReason', { reason }) : t('detail.disabled'),
        until ? t('detail.until', { until }) : t('detail.untilEnabled'),
      );
      break;
    }
    case 'account_enabled':
      phrases.push(t('detail.enabled'));
      break;
    case 'signed_out_by_admin':
      phrases.push(t('detail.signedOutByAdmin'));
      break;
    case 'impersonation_started': {
      const until = endsAt(d.until);
      phrases.push(t('detail.impersonationStarted'), until && t('detail.untilLatest', { until }));
      break;
    }
    case 'impersonation_ended':
      phrases.push(
        d.reason === 'expired'
          ? t('detail.expired')
          : d.reason === 'stopped'
            ? t('detail.stopped')
            : d.reason === 'signed_out'
              ? t('detail.signedOut')
              : null,
      );
      break;
    case 'organization_member_added':
    case 'organization_invitation_accepted':
      phrases.push(
        d.organization_id !== undefined && t('detail.organization', { id: String(d.organization_id) }),
        text(d.role) && t('detail.asRole', { role: roleName(t, String(d.role)) }),
      );
      break;
    case 'organization_role_changed':
      phrases.push(
        d.organization_id !== undefined && t('detail.organization', { id: String(d.organization_id) }),
        text(d.from) &&
          text(d.to) &&
          t('detail.roleFromTo', { from: roleName(t, String(d.from)), to: roleName(t, String(d.to)) }),
      );
      break;
    case 'organization_member_removed':
      phrases.push(
        d.organization_id !== undefined && t('detail.organization', { id: String(d.organization_id) }),
        d.reason === 'organization_deleted'
          ? t('detail.organizationDeleted')
          : d.by === 'self'
            ? t('detail.leftOrganization')
            : d.by === 'manager' && t('detail.removedByManager'),
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
function describeDetail(event: SecurityEventView, language: Language): string {
  const phrases = eventDetails(event, language);
  if (phrases.length > 0) phrases[0] = capitalized(phrases[0]!);
  if (event.ip) phrases.push(`IP\u00a0${event.ip}`);
  return phrases.join(' · ');
}

export function eventsPage(ctx: PageContext<AccountPageProps>): SafeHtml {
  const data = ctx.outcome?.data as EventPage | undefined;
  const events = data?.events ?? [];
  const pagination = data?.pagination;
  const t = accountCenterMessages.in(ctx.language);
  const link = (page: number | null | undefined, label: string, rel: string) =>
    page
      ? html`<a href="/account/events?page=${page}&amp;limit=${pagination?.limit ?? 20}" rel="${rel}"
          >${label}</a
        >`
      : '';
  return layout(
    ctx,
    t('events.title'),
    html`<p>${t('events.intro', { days: ctx.props.retentionDays })}</p>
      ${
        events.length === 0
          ? html`<p>${t('events.none')}</p>`
          : html`<ol class="plain events" id="event-list">
              ${events.map(
                (e) =>
                  html`<li class="event" data-event-type="${e.type}">
                    <div>
                      <strong>${eventLabel(e, ctx.language)}</strong> ·
                      ${when(e.created_at, '', ctx.language)}
                    </div>
                    <div class="hint wrap">${describeDetail(e, ctx.language)}</div>
                  </li>`,
              )}
            </ol>`
      }
      ${
        pagination && (pagination.prevPage || pagination.nextPage)
          ? html`<nav class="pager" aria-label="${t('events.pages')}">
              ${link(pagination.prevPage, t('events.newer'), 'prev')}
              <span>${t('events.page', { page: pagination.page, total: pagination.totalPages })}</span
              >${link(pagination.nextPage, t('events.older'), 'next')}
            </nav>`
          : ''
      }
      <p><a href="/account">${t('back')}</a></p>`,
  );
}
