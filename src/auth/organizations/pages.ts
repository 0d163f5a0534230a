import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { html, type SafeHtml } from '../../core/html.ts';
import { csrfField, field, form, layout } from '../../http/html/layout.ts';
import type { PageContext, PageHeaderPart } from '../../http/response/respond.ts';
import { ACTIVE_ORGANIZATION_KEY } from '../core/tenancy.ts';

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

/** GET /organizations: the caller's organizations, switching, and a form to create one. */
export function organizationsPage(ctx: PageContext<OrganizationsPageProps>) {
  const { organizations, active } = ctx.props;
  const rows = organizations.map(
    (o) =>
      html`<tr>
        <td>
          <a href="/organizations/${String(o.id)}">${o.name}</a
          >${o.id === active ? html`<span class="badge">active</span>` : ''}
        </td>
        <td><code>${o.slug}</code></td>
        <td>${o.role}</td>
        <td>
          ${o.id === active ? '' : activeForm(ctx, o.id, html`Act in <span class="visually-hidden">${o.name}</span>`)}
        </td>
      </tr>`,
  );
  return layout(
    ctx,
    'Organizations',
    html`<p>Organizations share projects and other data between their members, each with a role.</p>
      ${
        organizations.length === 0
          ? html`<p>You are not a member of any organization yet.</p>`
          : html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Slug</th>
                      <th scope="col">Your role</th>
                      <th scope="col"><span class="visually-hidden">Switch</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows}
                  </tbody>
                </table>
              </div>
              ${active === null ? '' : html`<div class="actions">${activeForm(ctx, null, 'Act in no organization')}</div>`}`
      }
      <h2>Create an organization</h2>
      ${form(
        ctx,
        '/organizations',
        html`${field(ctx, { name: 'name', label: 'Name', required: true })}
        ${field(ctx, { name: 'slug', label: 'Slug (optional)', hint: 'Lower-case letters, digits and dashes; made from the name when left empty.' })}`,
        'Create',
      )}`,
  );
}

/** GET /organizations/{id}: members and their roles, invitations, and the owner's settings. */
export function organizationPage(ctx: PageContext<OrganizationPageProps>) {
  const { organization, members, invitations, roles, active } = ctx.props;
  if (!organization)
    return layout(
      ctx,
      'Organization',
      html`<p>No such organization. <a href="/organizations">Your organizations</a></p>`,
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
            (role) => html`<option value="${role}" ${role === current ? 'selected' : ''}>${role}</option>`,
          )}
      </select>`;
  const memberRows = members.map((m) => {
    const touchable = manager && (owner || m.role !== 'owner');
    const base = `/organizations/${id}/members/${String(m.user.id)}`;
    return html`<tr>
      <td>
        ${m.user.username}${m.user.id === me ? html`<span class="badge muted">you</span>` : ''}
        <div class="hint wrap">${m.user.email}</div>
      </td>
      <td>
        ${
          touchable
            ? html`<form class="switcher" method="post" action="${base}/role">
                ${csrfField(ctx)}${roleSelect('role', m.role, `Role of ${m.user.username}`, `role-${String(m.user.id)}`)}
                <button class="secondary" type="submit">
                  Save <span class="visually-hidden">role of ${m.user.username}</span>
                </button>
              </form>`
            : m.role
        }
      </td>
      <td>
        ${
          touchable || m.user.id === me
            ? html`<form class="inline" method="post" action="${base}/remove">
                ${csrfField(ctx)}<button class="danger" type="submit">
                  ${m.user.id === me ? 'Leave' : html`Remove <span class="visually-hidden">${m.user.username}</span>`}
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
        Slug <code>${organization.slug}</code> · your role:
        <strong>${organization.role}</strong
        >${organization.id === active ? html`<span class="badge">active</span>` : ''}
      </p>
      ${organization.id === active ? '' : html`<div class="actions">${activeForm(ctx, organization.id, 'Act in this organization', false)}</div>`}
      <h2>Members</h2>
      <div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${memberRows}
          </tbody>
        </table>
      </div>
      <h2>Roles</h2>
      <p class="hint">
        Owners and admins may do everything; owners alone manage owners and delete the organization. Other
        roles hold the permissions the server gives them.
      </p>
      ${
        manager
          ? html`<h2>Invite someone</h2>
              ${form(
                ctx,
                `/organizations/${id}/invitations`,
                html`${field(ctx, { name: 'email', label: 'Email', type: 'email', autocomplete: 'off', required: true })}
                  <label for="invite-role">Role</label>
                  <select id="invite-role" name="role">
                    ${roles
                      .filter((role) => owner || role !== 'owner')
                      .map(
                        (role) =>
                          html`<option value="${role}" ${role === 'member' ? 'selected' : ''}>
                            ${role}
                          </option>`,
                      )}
                  </select>`,
                'Send invitation',
              )}
              ${
                invitations.length === 0
                  ? ''
                  : html`<h2>Open invitations</h2>
                      <ul class="plain">
                        ${invitations.map(
                          (i) =>
                            html`<li class="event">
                              <span class="wrap">${i.email}</span> · ${i.role} · by ${i.inviter} · until
                              <time>${i.expires_at.slice(0, 10)}</time>
                              ${
                                owner || i.role !== 'owner'
                                  ? html`<form
                                      class="inline"
                                      method="post"
                                      action="/organizations/${id}/invitations/${String(i.id)}/revoke"
                                    >
                                      ${csrfField(ctx)}<button class="secondary" type="submit">
                                        Withdraw
                                        <span class="visually-hidden">the invitation to ${i.email}</span>
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
              <h2>Delete the organization</h2>
              <p>
                Its members lose access, and its projects and other data are deleted. This asks you to confirm
                who you are.
              </p>
              <form method="post" action="/organizations/${id}/delete">
                ${csrfField(ctx)}<button class="danger" type="submit">Delete ${organization.name}</button>
              </form>
            </div>`
          : ''
      }
      <p><a href="/organizations">All your organizations</a></p>`,
  );
}

/**
 * GET /organizations/invitations/{token}: the emailed link, accepted with one button; an account
 * holding the invited address without having proved it is offered a link that proves it.
 */
export function invitationPage(ctx: PageContext<InvitationPageProps>) {
  const { token, proof, organization, state, email } = ctx.props;
  if (!organization)
    return layout(
      ctx,
      'Invitation',
      html`<p>This invitation is invalid, was revoked, was already used or has expired.</p>`,
    );
  const tokenField = html`${csrfField(ctx)}<input type="hidden" name="token" value="${token}" />`;
  const join = (label: string) =>
    html`<form method="post" action="/organizations/invitations/accept">
      ${tokenField}${proof ? html`<input type="hidden" name="proof" value="${proof}" />` : ''}
      <button type="submit">${label}</button>
    </form>`;
  const body =
    state === 'anonymous'
      ? html`<p><a href="/login">Sign in</a> first, then open the link again.</p>`
      : state === 'other_address'
        ? html`<p>
            This invitation was sent to another address than yours (<span class="wrap">${email}</span>): sign
            in with the account whose address received it.
          </p>`
        : state === 'ready'
          ? join(`Join ${organization}`)
          : proof
            ? html`<p>Confirm that <span class="wrap">${email}</span> is yours, and join.</p>
                ${join(`Confirm my address and join ${organization}`)}`
            : html`<p>
                  Your address <span class="wrap">${email}</span> is not confirmed yet. We can email it a
                  link: open it while signed in to this account to confirm the address and join.
                </p>
                <form method="post" action="/organizations/invitations/confirmation">
                  ${tokenField}<button type="submit">Email me a confirmation link</button>
                </form>`;
  // The confirmation link was just sent (that answer shows this page again, with its message).
  const sent =
    ctx.outcome?.status === 'success' && ctx.outcome.message
      ? html`<div class="flash success" role="status">${ctx.outcome.message}</div>`
      : '';
  return layout(
    ctx,
    `Join ${organization}`,
    html`${sent}
      <p>
        You are invited to join <strong>${organization}</strong>. Accept it while signed in with the address
        the invitation was sent to.
      </p>
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
    if (organizations.length === 0) return html`<a href="/organizations">Organizations</a>`;
    return html`<form class="switcher" method="post" action="/organizations/active">
      <input type="hidden" name="_csrf" value="${request.csrf}" />
      <label class="visually-hidden" for="organization-switch">Active organization</label>
      <select id="organization-switch" name="organization_id">
        <option value="" ${active === null ? 'selected' : ''}>No organization</option>
        ${organizations.map((o) => html`<option value="${String(o.id)}" ${o.id === active ? 'selected' : ''}>${o.name}</option>`)}
      </select>
      <button class="secondary" type="submit">Switch</button>
      <a href="/organizations">Organizations</a>
    </form>`;
  };
}
