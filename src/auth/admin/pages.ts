import {
  html,
  type SafeHtml,
  field,
  form,
  layout,
  when,
  type PageContext,
  type PageHeaderPart,
  isAdmin,
  type UserRecord,
} from '../../plugin-api.ts';
import { adminMessages } from './messages/index.ts';
import { DISABLED_INDEFINITELY, disabledUntil, type AdminUserPage, type AdminUserView } from './users.ts';

/** What the admin pages show: a page of users (the list) or one user (its actions); null for non-admins. */
export interface AdminPageProps {
  users: AdminUserPage | null;
  user: UserRecord | null;
  now: string;
  search?: string;
  /** How long an impersonation lasts at most. */
  minutes: number;
}

function status(ctx: PageContext, user: Pick<AdminUserView, 'active' | 'disabled_until'>): SafeHtml {
  const t = adminMessages.in(ctx.language);
  if (user.disabled_until === DISABLED_INDEFINITELY)
    return html`<span class="badge">${t('status.disabled')}</span>`;
  if (user.disabled_until)
    return html`<span class="badge"
      >${t('status.disabledUntil', { until: String(when(user.disabled_until, '', ctx.language)) })}</span
    >`;
  if (!user.active) return html`<span class="badge muted">${t('status.inactive')}</span>`;
  return html`<span class="badge muted">${t('status.active')}</span>`;
}

function notAllowed(ctx: PageContext<AdminPageProps>, title: string): SafeHtml {
  return layout(ctx, title, html`<p>${adminMessages.in(ctx.language)('page.notAllowed')}</p>`);
}

/**
 * The header's "Admin" link, for a signed-in administrator acting as themself (the admin endpoints
 * refuse an impersonating session) on a server that serves the users list.
 */
export const adminHeaderLink: PageHeaderPart = async ({ caller, serves, language }) => {
  if (caller?.via !== 'session' || caller.impersonator || !isAdmin(caller.user)) return null;
  const label = adminMessages.in(language)('page.headerLink');
  return serves('/admin/users') ? html`<a class="admin-link" href="/admin/users">${label}</a>` : null;
};

/** An account's role as the reader calls it (`user`, `admin`; another value as it is stored). */
function roleName(t: ReturnType<typeof adminMessages.in>, role: string): string {
  return role === 'user' || role === 'admin' ? t(`role.${role}`) : role;
}

/** /admin/users: search, the list, pages. */
export function adminUsersPage(ctx: PageContext<AdminPageProps>): SafeHtml {
  const t = adminMessages.in(ctx.language);
  const { users, search = '' } = ctx.props;
  if (!users) return notAllowed(ctx, t('users.title'));
  const { pagination } = users;
  const pageLink = (page: number) =>
    `/admin/users?${new URLSearchParams({ ...(search ? { search } : {}), page: String(page) }).toString()}`;
  return layout(
    ctx,
    t('users.title'),
    html`${ctx.serves('/admin/oauth/clients') ? html`<p><a href="/admin/oauth/clients">${t('users.oauthClients')}</a></p>` : ''}
      <form method="get" action="/admin/users" role="search" class="card">
        ${field(ctx, {
          name: 'search',
          label: t('users.searchLabel'),
          type: 'text',
          value: search,
          autocomplete: 'off',
        })}
        <button type="submit">${t('users.search')}</button>
      </form>
      <p id="user-count">${t('users.count', { count: pagination.total })}</p>
      ${
        users.users.length === 0
          ? html`<p id="no-users">${t('users.none')}</p>`
          : html`<div class="table-wrap">
              <table id="user-list" class="stack">
                <thead>
                  <tr>
                    <th>${t('users.user')}</th>
                    <th>${t('users.email')}</th>
                    <th>${t('users.role')}</th>
                    <th>${t('users.status')}</th>
                    <th>${t('users.lastSignIn')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${users.users.map(
                    (user) =>
                      html`<tr data-user-id="${user.id}">
                        <td class="wrap"><a href="/admin/users/${user.id}">${user.username}</a></td>
                        <td class="wrap">${user.email}</td>
                        <td data-label="${t('users.role')}">${roleName(t, user.role)}</td>
                        <td data-label="${t('users.status')}">${status(ctx, user)}</td>
                        <td data-label="${t('users.lastSignIn')}">
                          ${when(user.last_sign_in_at, t('users.never'), ctx.language)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${
        pagination.totalPages > 1
          ? html`<nav class="pager" aria-label="${t('users.pages')}">
              ${pagination.prevPage ? html`<a href="${pageLink(pagination.prevPage)}" rel="prev">${t('users.previous')}</a>` : ''}
              <span>${t('users.page', { page: pagination.page, total: pagination.totalPages })}</span>
              ${pagination.nextPage ? html`<a href="${pageLink(pagination.nextPage)}" rel="next">${t('users.next')}</a>` : ''}
            </nav>`
          : ''
      }`,
  );
}

/** /admin/users/{id}: the user's facts and the actions (disable or enable, sign out, impersonate). */
export function adminUserPage(ctx: PageContext<AdminPageProps>): SafeHtml {
  const t = adminMessages.in(ctx.language);
  const { user, now } = ctx.props;
  if (!user) return notAllowed(ctx, t('user.title'));
  const until = disabledUntil(user, now);
  const view = { active: user.active === 1, disabled_until: until };
  const base = `/admin/users/${user.id}`;
  const canAct = !until && user.active === 1 && user.role !== 'admin';
  // Back from the sudo page after "Act as": that form first, to confirm with one press.
  const resuming = canAct && ctx.query.act === '1';
  const actAs = canAct
    ? html`<section class="card" aria-labelledby="impersonate-heading">
        <h2 id="impersonate-heading">${t('user.actAsTitle')}</h2>
        ${resuming ? html`<p class="flash info" id="impersonate-confirm">${t('user.actAsConfirmed', { username: user.username })}</p>` : ''}
        <p>${t('user.actAsIntro', { username: user.username, minutes: ctx.props.minutes })}</p>
        ${form(ctx, `${base}/impersonate`, '', t('user.actAs', { username: user.username }), '', resuming ? '' : 'secondary')}
      </section>`
    : '';
  return layout(
    ctx,
    user.username,
    html`<p><a href="/admin/users">${t('user.all')}</a></p>
      ${resuming ? actAs : ''}
      <dl class="facts">
        <dt>${t('users.email')}</dt>
        <dd>${user.email}</dd>
        <dt>${t('users.role')}</dt>
        <dd>${roleName(t, user.role)}</dd>
        <dt>${t('users.status')}</dt>
        <dd>${status(ctx, view)}</dd>
        <dt>${t('user.created')}</dt>
        <dd>${when(user.created_at, '', ctx.language)}</dd>
      </dl>
      <section class="card" aria-labelledby="sign-out-heading">
        <h2 id="sign-out-heading">${t('user.signOutTitle')}</h2>
        <p>${t('user.signOutIntro')}</p>
        ${form(ctx, `${base}/sign-out`, '', t('user.signOut'), '', 'secondary')}
      </section>
      ${
        until
          ? html`<section class="card" aria-labelledby="enable-heading">
              <h2 id="enable-heading">${t('user.enableTitle')}</h2>
              <p>${t('user.enableIntro')}</p>
              ${form(ctx, `${base}/enable`, '', t('user.enable'))}
            </section>`
          : html`<section class="card danger-zone" aria-labelledby="disable-heading">
              <h2 id="disable-heading">${t('user.disableTitle')}</h2>
              <p>${t('user.disableIntro')}</p>
              ${form(
                ctx,
                `${base}/disable`,
                html`${field(ctx, { name: 'reason', label: t('user.reason'), required: true })}
                ${field(ctx, {
                  name: 'until',
                  label: t('user.until'),
                  type: 'datetime-local',
                  hint: t('user.untilHint'),
                })}`,
                t('user.disable'),
                '',
                'danger',
              )}
            </section>`
      }
      ${resuming ? '' : actAs}`,
  );
}
