import type { Kysely } from 'kysely';
import {
  type Database,
  html,
  type SafeHtml,
  csrfField,
  field,
  form,
  layout,
  type PageContext,
  type PageHeaderPart,
  ACTIVE_ORGANIZATION_KEY,
} from '../../plugin-api.ts';
import { organizationsMessages } from './messages/index.ts';

export interface OrganizationSummary {
  id: number;
  name: string;
  slug: string;
  role: string;
}

/** The caller's organizations, for the list page and the header's switcher. */
export interface OrganizationsPageProps {
  organizations: OrganizationSummary[];
  active: number | null;
}

export interface OrganizationPageProps {
  organization: OrganizationSummary | null;
  members: { user: { id: number; username: string; email: string }; role: string; created_at: string }[];
  /** Pending invitations (managers only), with the inviter's username. */
  invitations: { id: number; email: string; role: string; inviter: string; expires_at: string }[];
  roles: string[];
  active: number | null;
}

export interface InvitationPageProps {
  token: string;
  /** The token of the emailed link that proves the caller's address, when the page was opened from it. */
  proof: string;
  /** The organization's name; null when the invitation cannot be accepted. */
  organization: string | null;
  /** Signed out; signed in with another address; with the address, not proved; ready to join. */
  state: 'anonymous' | 'other_address' | 'unconfirmed' | 'ready';
  /** The signed-in account's address. */
  email: string;
}

function activeForm(
  ctx: PageContext,
  id: number | null,
  label: string | SafeHtml,
  secondary = true,
): SafeHtml {
  return html`<form class="inline" method="post" action="/organizations/active">
    ${csrfField(ctx)}<input type="hidden" name="organization_id" value="${id === null ? '' : String(id)}" />
    <button class="${secondary ? 'secondary' : ''}" type="submit">${label}</button>
  </form>`;
}

/** A role as the reader calls it: the built-in roles from the catalog, an application's own by its name. */
export function roleName(t: ReturnType<typeof organizationsMessages.in>, role: string): string {
  return role === 'owner' || role === 'admin' || role === 'member' ? t(`role.${role}`) : role;
}

/** GET /organizations: the caller's organizations, switching, and a form to create one. */
export function organizationsPage(ctx: PageContext<OrganizationsPageProps>) {
  const t = organizationsMessages.in(ctx.language);
  const { organizations, active } = ctx.props;
  const rows = organizations.map(
    (o) =>
      html`<tr>
        <td>
          <a href="/organizations/${String(o.id)}">${o.name}</a
          >${o.id === active ? html`<span class="badge">${t('list.active')}</span>` : ''}
        </td>
        <td><code>${o.slug}</code></td>
        <td>${roleName(t, o.role)}</td>
        <td>
          ${o.id === active ? '' : activeForm(ctx, o.id, html`${t('list.actIn')} <span class="visually-hidden">${o.name}</span>`)}
        </td>
      </tr>`,
  );
  return layout(
    ctx,
    t('list.title'),
    html`<p>${t('list.intro')}</p>
      ${
        organizations.length === 0
          ? html`<p>${t('list.none')}</p>`
          : html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">${t('list.name')}</th>
                      <th scope="col">${t('list.slug')}</th>
                      <th scope="col">${t('list.yourRole')}</th>
                      <th scope="col"><span class="visually-hidden">${t('list.switch')}</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows}
                  </tbody>
                </table>
              </div>
              ${active === null ? '' : html`<div class="actions">${activeForm(ctx, null, t('list.actInNone'))}</div>`}`
      }
      <h2>${t('create.title')}</h2>
      ${form(
        ctx,
        '/organizations',
        html`${field(ctx, { name: 'name', label: t('list.name'), required: true })}
        ${field(ctx, { name: 'slug', label: t('create.slug'), hint: t('create.slugHint') })}`,
        t('create.submit'),
      )}`,
  );
}

/** GET /organizations/{id}: members and their roles, invitations, and the owner's settings. */
export function organizationPage(ctx: PageContext<OrganizationPageProps>) {
  const t = organizationsMessages.in(ctx.language);
  const { organization, members, invitations, roles, active } = ctx.props;
  if (!organization)
    return layout(
      ctx,
      t('org.title'),
      html`<p>${t('org.none')} <a href="/organizations">${t('org.yours')}</a></p>`,
    );
  const id = String(organization.id);
  const manager = organization.role === 'owner' || organization.role === 'admin';
  const owner = organization.role === 'owner';
  const me = ctx.user?.id;
  const roleSelect = (name: string, current: string, label: string, fieldId: string) =>
    html`<label class="visually-hidden" for="${fieldId}">${label}</label>
      <select id="${fieldId}" name="${name}">
        ${roles
          .filter((role) => owner || role !== 'owner')
          .map(
            (role) =>
              html`<option value="${role}" ${role === current ? 'selected' : ''}>
                ${roleName(t, role)}
              </option>`,
          )}
      </select>`;
  const memberRows = members.map((m) => {
    const touchable = manager && (owner || m.role !== 'owner');
    const base = `/organizations/${id}/members/${String(m.user.id)}`;
    return html`<tr>
      <td>
        ${m.user.username}${m.user.id === me ? html`<span class="badge muted">${t('org.you')}</span>` : ''}
        <div class="hint wrap">${m.user.email}</div>
      </td>
      <td>
        ${
          touchable
            ? html`<form class="switcher" method="post" action="${base}/role">
                ${csrfField(ctx)}${roleSelect('role', m.role, t('org.roleOf', { username: m.user.username }), `role-${String(m.user.id)}`)}
                <button class="secondary" type="submit">
                  ${t('org.save')}
                  <span class="visually-hidden">${t('org.roleOf', { username: m.user.username })}</span>
                </button>
              </form>`
            : roleName(t, m.role)
        }
      </td>
      <td>
        ${
          touchable || m.user.id === me
            ? html`<form class="inline" method="post" action="${base}/remove">
                ${csrfField(ctx)}<button class="danger" type="submit">
                  ${m.user.id === me ? t('org.leave') : html`${t('org.remove')} <span class="visually-hidden">${m.user.username}</span>`}
                </button>
              </form>`
            : ''
        }
      </td>
    </tr>`;
  });
  return layout(
    ctx,
    organization.name,
    html`<p>
        ${t('org.facts', { slug: organization.slug, role: roleName(t, organization.role) })}${organization.id === active ? html`<span class="badge">${t('list.active')}</span>` : ''}
      </p>
      ${organization.id === active ? '' : html`<div class="actions">${activeForm(ctx, organization.id, t('org.actHere'), false)}</div>`}
      <h2>${t('org.members')}</h2>
      <div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">${t('org.member')}</th>
              <th scope="col">${t('org.role')}</th>
              <th scope="col"><span class="visually-hidden">${t('org.actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            ${memberRows}
          </tbody>
        </table>
      </div>
      <h2>${t('org.roles')}</h2>
      <p class="hint">${t('org.rolesHint')}</p>
      ${
        manager
          ? html`<h2>${t('org.invite')}</h2>
              ${form(
                ctx,
                `/organizations/${id}/invitations`,
                html`${field(ctx, { name: 'email', label: t('org.email'), type: 'email', autocomplete: 'off', required: true })}
                  <label for="invite-role">${t('org.role')}</label>
                  <select id="invite-role" name="role">
                    ${roles
                      .filter((role) => owner || role !== 'owner')
                      .map(
                        (role) =>
                          html`<option value="${role}" ${role === 'member' ? 'selected' : ''}>
                            ${roleName(t, role)}
                          </option>`,
                      )}
                  </select>`,
                t('org.sendInvitation'),
              )}
              ${
                invitations.length === 0
                  ? ''
                  : html`<h2>${t('org.openInvitations')}</h2>
                      <ul class="plain">
                        ${invitations.map(
                          (i) =>
                            html`<li class="event">
                              <span class="wrap">${i.email}</span> ·
                              ${t('org.invitationLine', { role: roleName(t, i.role), inviter: i.inviter, until: i.expires_at.slice(0, 10) })}
                              ${
                                owner || i.role !== 'owner'
                                  ? html`<form
                                      class="inline"
                                      method="post"
                                      action="/organizations/${id}/invitations/${String(i.id)}/revoke"
                                    >
                                      ${csrfField(ctx)}<button class="secondary" type="submit">
                                        ${t('org.withdraw')}
                                        <span class="visually-hidden">${i.email}</span>
                                      </button>
                                    </form>`
                                  : ''
                              }
                            </li>`,
                        )}
                      </ul>`
              }`
          : ''
      }
      ${
        owner
          ? html`<div class="card danger-zone">
              <h2>${t('org.deleteTitle')}</h2>
              <p>${t('org.deleteIntro')}</p>
              <form method="post" action="/organizations/${id}/delete">
                ${csrfField(ctx)}<button class="danger" type="submit">
                  ${t('org.delete', { name: organization.name })}
                </button>
              </form>
            </div>`
          : ''
      }
      <p><a href="/organizations">${t('org.all')}</a></p>`,
  );
}

/**
 * GET /organizations/invitations/{token}: the emailed link, accepted with one button; an account
 * holding the invited address without having proved it is offered a link that proves it.
 */
export function invitationPage(ctx: PageContext<InvitationPageProps>) {
  const t = organizationsMessages.in(ctx.language);
  const { token, proof, organization, state, email } = ctx.props;
  if (!organization) return layout(ctx, t('invite.title'), html`<p>${t('invite.gone')}</p>`);
  const tokenField = html`${csrfField(ctx)}<input type="hidden" name="token" value="${token}" />`;
  const join = (label: string) =>
    html`<form method="post" action="/organizations/invitations/accept">
      ${tokenField}${proof ? html`<input type="hidden" name="proof" value="${proof}" />` : ''}
      <button type="submit">${label}</button>
    </form>`;
  const body =
    state === 'anonymous'
      ? html`<p>${t('invite.signInFirst')} <a href="/login">${t('invite.signIn')}</a></p>`
      : state === 'other_address'
        ? html`<p class="wrap">${t('invite.otherAddress', { email })}</p>`
        : state === 'ready'
          ? join(t('invite.join', { name: organization }))
          : proof
            ? html`<p class="wrap">${t('invite.confirmAndJoinIntro', { email })}</p>
                ${join(t('invite.confirmAndJoin', { name: organization }))}`
            : html`<p class="wrap">${t('invite.unconfirmed', { email })}</p>
                <form method="post" action="/organizations/invitations/confirmation">
                  ${tokenField}<button type="submit">${t('invite.emailMe')}</button>
                </form>`;
  // The confirmation link was just sent (that answer shows this page again, with its message).
  const sent =
    ctx.outcome?.status === 'success' && ctx.outcome.message
      ? html`<div class="flash success" role="status">${ctx.outcome.message}</div>`
      : '';
  return layout(
    ctx,
    t('invite.join', { name: organization }),
    html`${sent}
      <p>${t('invite.intro', { name: organization })}</p>
      ${body}`,
  );
}

/**
 * The header's organization switcher: the caller's organizations in a select, on pages for a
 * signed-in browser; loaded with `load` (one statement).
 */
export function switcher(
  load: (db: Kysely<Database>, userId: number) => Promise<OrganizationSummary[]>,
): PageHeaderPart {
  return async (request) => {
    const caller = request.caller;
    if (caller?.via !== 'session') return null;
    const organizations = await load(request.db, caller.user.id);
    const active = request.session.get<number>(ACTIVE_ORGANIZATION_KEY) ?? null;
    const t = organizationsMessages.in(request.language);
    if (organizations.length === 0) return html`<a href="/organizations">${t('list.title')}</a>`;
    return html`<form class="switcher" method="post" action="/organizations/active">
      <input type="hidden" name="_csrf" value="${request.csrf}" />
      <label class="visually-hidden" for="organization-switch">${t('switcher.label')}</label>
      <select id="organization-switch" name="organization_id">
        <option value="" ${active === null ? 'selected' : ''}>${t('switcher.none')}</option>
        ${organizations.map((o) => html`<option value="${String(o.id)}" ${o.id === active ? 'selected' : ''}>${o.name}</option>`)}
      </select>
      <button class="secondary" type="submit">${t('switcher.submit')}</button>
      <a href="/organizations">${t('list.title')}</a>
    </form>`;
  };
}
