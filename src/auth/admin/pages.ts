import { html, type SafeHtml } from '../../core/html.ts';
import { field, form, layout, when } from '../../http/html/layout.ts';
import type { PageContext, PageHeaderPart } from '../../http/response/respond.ts';
import { isAdmin } from '../core/roles.ts';
import type { UserRecord } from '../core/users.ts';
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

function status(user: Pick<AdminUserView, 'active' | 'disabled_until'>): SafeHtml {
  if (user.disabled_until === DISABLED_INDEFINITELY) return html`<span class="badge">Disabled</span>`;
  if (user.disabled_until)
    return html`<span class="badge">Disabled until ${when(user.disabled_until, '')}</span>`;
  if (!user.active) return html`<span class="badge muted">Inactive</span>`;
  return html`<span class="badge muted">Active</span>`;
}

function notAllowed(ctx: PageContext<AdminPageProps>, title: string): SafeHtml {
  return layout(ctx, title, html`<p>This page is for administrators.</p>`);
}

/**
 * The header's "Admin" link, for a signed-in administrator acting as themself (the admin endpoints
 * refuse an impersonating session) on a server that serves the users list.
 */
export const adminHeaderLink: PageHeaderPart = async ({ caller, serves }) => {
  if (caller?.via !== 'session' || caller.impersonator || !isAdmin(caller.user)) return null;
  return serves('/admin/users') ? html`<a class="admin-link" href="/admin/users">Admin</a>` : null;
};

/** /admin/users: search, the list, pages. */
export function adminUsersPage(ctx: PageContext<AdminPageProps>): SafeHtml {
  const { users, search = '' } = ctx.props;
  if (!users) return notAllowed(ctx, 'Users');
  const { pagination } = users;
  const pageLink = (page: number) =>
    `/admin/users?${new URLSearchParams({ ...(search ? { search } : {}), page: String(page) }).toString()}`;
  return layout(
    ctx,
    'Users',
    html`${ctx.serves('/admin/oauth/clients') ? html`<p><a href="/admin/oauth/clients">OAuth clients</a></p>` : ''}
      <form method="get" action="/admin/users" role="search" class="card">
        ${field(ctx, {
          name: 'search',
          label: 'Search by username or email',
          type: 'text',
          value: search,
          autocomplete: 'off',
        })}
        <button type="submit">Search</button>
      </form>
      <p id="user-count">${pagination.total} ${pagination.total === 1 ? 'user' : 'users'}</p>
      ${
        users.users.length === 0
          ? html`<p id="no-users">No users match.</p>`
          : html`<div class="table-wrap">
              <table id="user-list" class="stack">
                <thead>
                  <tr>
                    <th>User</th>
                    <th>Email</th>
                    <th>Role</th>
                    <th>Status</th>
                    <th>Last sign-in</th>
                  </tr>
                </thead>
                <tbody>
                  ${users.users.map(
                    (user) =>
                      html`<tr data-user-id="${user.id}">
                        <td class="wrap"><a href="/admin/users/${user.id}">${user.username}</a></td>
                        <td class="wrap">${user.email}</td>
                        <td data-label="Role">${user.role}</td>
                        <td data-label="Status">${status(user)}</td>
                        <td data-label="Last sign-in">${when(user.last_sign_in_at, 'never')}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${
        pagination.totalPages > 1
          ? html`<nav class="pager" aria-label="Pages">
              ${pagination.prevPage ? html`<a href="${pageLink(pagination.prevPage)}" rel="prev">Previous</a>` : ''}
              <span>Page ${pagination.page} of ${pagination.totalPages}</span>
              ${pagination.nextPage ? html`<a href="${pageLink(pagination.nextPage)}" rel="next">Next</a>` : ''}
            </nav>`
          : ''
      }`,
  );
}

/** /admin/users/{id}: the user's facts and the actions (disable or enable, sign out, impersonate). */
export function adminUserPage(ctx: PageContext<AdminPageProps>): SafeHtml {
  const { user, now } = ctx.props;
  if (!user) return notAllowed(ctx, 'User');
  const until = disabledUntil(user, now);
  const view = { active: user.active === 1, disabled_until: until };
  const base = `/admin/users/${user.id}`;
  const canAct = !until && user.active === 1 && user.role !== 'admin';
  // Back from the sudo page after "Act as": that form first, to confirm with one press.
  const resuming = canAct && ctx.query.act === '1';
  const actAs = canAct
    ? html`<section class="card" aria-labelledby="impersonate-heading">
        <h2 id="impersonate-heading">Act as this user</h2>
        ${resuming ? html`<p class="flash info" id="impersonate-confirm">You confirmed it is you. Act as ${user.username} now?</p>` : ''}
        <p>
          This browser session acts as ${user.username} for ${ctx.props.minutes} minutes at most, until you
          stop.
        </p>
        ${form(ctx, `${base}/impersonate`, '', `Act as ${user.username}`, '', resuming ? '' : 'secondary')}
      </section>`
    : '';
  return layout(
    ctx,
    user.username,
    html`<p><a href="/admin/users">All users</a></p>
      ${resuming ? actAs : ''}
      <dl class="facts">
        <dt>Email</dt>
        <dd>${user.email}</dd>
        <dt>Role</dt>
        <dd>${user.role}</dd>
        <dt>Status</dt>
        <dd>${status(view)}</dd>
        <dt>Created</dt>
        <dd>${when(user.created_at, '')}</dd>
      </dl>
      <section class="card" aria-labelledby="sign-out-heading">
        <h2 id="sign-out-heading">Sign out everywhere</h2>
        <p>Ends every session of this user on every device.</p>
        ${form(ctx, `${base}/sign-out`, '', 'Sign out everywhere', '', 'secondary')}
      </section>
      ${
        until
          ? html`<section class="card" aria-labelledby="enable-heading">
              <h2 id="enable-heading">Enable</h2>
              <p>The user may sign in again.</p>
              ${form(ctx, `${base}/enable`, '', 'Enable the account')}
            </section>`
          : html`<section class="card danger-zone" aria-labelledby="disable-heading">
              <h2 id="disable-heading">Disable</h2>
              <p>Every session and token of the user ends now, and signing in is refused.</p>
              ${form(
                ctx,
                `${base}/disable`,
                html`${field(ctx, { name: 'reason', label: 'Reason', required: true })}
                ${field(ctx, {
                  name: 'until',
                  label: 'Until (optional)',
                  type: 'datetime-local',
                  hint: 'UTC. Leave empty to disable until enabled again.',
                })}`,
                'Disable the account',
                '',
                'danger',
              )}
            </section>`
      }
      ${resuming ? '' : actAs}`,
  );
}
