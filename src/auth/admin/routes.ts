import { Type } from '@sinclair/typebox';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  Envelope,
  originOf,
  isAdmin,
  isDisabled,
  type UserRecord,
  pageAsked,
  PagePaginationSchema,
  pageQuery,
} from '../../plugin-api.ts';
import { disableUser, enableUser, listUsers, signOutUser } from './users.ts';
import { endImpersonation, impersonationOf, startImpersonation } from './impersonation.ts';
import { adminUserPage, adminUsersPage, type AdminPageProps } from './pages.ts';
import { adminOptions } from './options.ts';
import { adminMessages } from './messages/index.ts';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

const AdminUserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  active: Type.Boolean(),
  role: Type.String(),
  disabled_until: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  last_sign_in_at: Type.Union([Type.String(), Type.Null()]),
});

const UserId = Type.Object({ id: Type.String({ maxLength: 20, pattern: '^[0-9]+$' }) });

async function targetUser(input: EndpointInput<{ id: string }>, admin: UserRecord): Promise<UserRecord> {
  const id = Number(input.params.id);
  const user = Number.isSafeInteger(id) ? await input.services.users.findById(id) : undefined;
  if (!user) throw new NotFoundError(adminMessages.text('error.userNotFound'));
  if (user.id === admin.id) throw new ConflictError(adminMessages.text('error.ownAccount'));
  return user;
}

/** The admin pages' input: the fields of their declarations that passed. */
type AdminPageInput = EndpointInput<{ id?: string }, { search?: string; page?: number; act?: string }>;

async function pageProps(input: AdminPageInput): Promise<AdminPageProps> {
  const { caller, services } = input;
  const minutes = adminOptions(services).impersonationMinutes;
  const isAdminCaller =
    caller !== null && isAdmin(caller.user) && !(caller.via === 'session' && caller.impersonator);
  if (!isAdminCaller) return { users: null, user: null, now: services.clock.now().toISOString(), minutes };
  const { params, query } = input;
  const now = services.clock.now().toISOString();
  if (params.id !== undefined) {
    const id = Number(params.id);
    const user = Number.isSafeInteger(id) ? ((await services.users.findById(id)) ?? null) : null;
    return { users: null, user, now, search: '', minutes };
  }
  const search = query.search ?? '';
  return {
    users: await listUsers(services.db, now, { search, page: query.page ?? 1, limit: DEFAULT_LIMIT }),
    user: null,
    now,
    search,
    minutes,
  };
}

const list = defineEndpoint({
  method: 'GET',
  path: '/admin/users',
  action: 'admin.users',
  auth: 'admin',
  ability: 'admin:read',
  summary: 'Users, with search and pagination (administrators)',
  query: Type.Object({
    search: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the username or email' })),
    ...pageQuery(DEFAULT_LIMIT, MAX_LIMIT),
  }),
  failures: [403],
  responses: {
    200: Envelope({
      data: Type.Object({ users: Type.Array(AdminUserSchema), pagination: PagePaginationSchema }),
    }),
  },
  page: adminUsersPage,
  pageProps,
  async handler({ query, services }) {
    const result = await listUsers(services.db, services.clock.now().toISOString(), {
      search: query.search,
      ...pageAsked(query, DEFAULT_LIMIT, MAX_LIMIT),
    });
    return { status: 'success', data: { ...result }, render: true };
  },
});

const show = defineEndpoint({
  method: 'GET',
  path: '/admin/users/:id',
  action: 'admin.user',
  auth: 'admin',
  ability: 'admin:read',
  summary: 'One user (administrators)',
  params: UserId,
  query: Type.Object({
    act: Type.Optional(
      Type.Literal('1', {
        description: 'HTML only: back from the sudo page, "Act as" is offered first, to confirm.',
      }),
    ),
  }),
  failures: [403, 404],
  responses: { 200: Envelope({ data: Type.Object({ user: AdminUserSchema }) }) },
  page: adminUserPage,
  pageProps,
  async handler({ params, services }) {
    const id = Number(params.id);
    const user = Number.isSafeInteger(id) ? await services.users.findById(id) : undefined;
    if (!user) throw new NotFoundError(adminMessages.text('error.userNotFound'));
    const now = services.clock.now().toISOString();
    const [view] = (await listUsers(services.db, now, { id: user.id, page: 1, limit: 1 })).users;
    return { status: 'success', data: { user: view! }, render: true };
  },
});

/** Every change to one user's account: a per-administrator limit, the user's page for browsers. */
const userChange = {
  auth: 'admin',
  ability: 'admin:update',
  params: UserId,
  failures: [403, 404, 409],
  responses: { 200: Envelope() },
  rateLimit: { name: 'admin:change', max: 120, windowSeconds: 60, per: 'user' },
  page: adminUserPage,
  pageProps,
} as const;

/**
 * Run a change on the user the path names, by an administrator in sudo mode (not on their own
 * account), and answer with the user's page: "<username> <done>."
 */
async function changeUser(
  input: EndpointInput<{ id: string }, unknown, unknown, 'admin'>,
  done: 'answer.disabled' | 'answer.enabled' | 'answer.signedOut',
  change: (
    target: UserRecord,
    by: { admin: UserRecord; origin: ReturnType<typeof originOf> },
  ) => Promise<void>,
) {
  const admin = input.caller.user;
  const target = await targetUser(input, admin);
  await change(target, { admin, origin: originOf(input) });
  return {
    status: 'success' as const,
    message: adminMessages.text(done, { username: target.username }),
    redirect_to: `/admin/users/${target.id}`,
  };
}

/** A disable's optional end: ISO 8601 in the future (a form's zoneless datetime-local is UTC), or null. */
function disabledUntil(until: string | undefined, now: Date): string | null {
  if (until === undefined || until === '') return null;
  const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(until);
  const at = Date.parse(zoneless ? `${until}Z` : until);
  if (!Number.isFinite(at) || !/^\d{4}-\d{2}-\d{2}/.test(until))
    throw new ValidationError({ until: adminMessages.text('error.untilFormat') });
  if (at <= now.getTime()) throw new ValidationError({ until: adminMessages.text('error.untilPast') });
  return new Date(at).toISOString();
}

const disable = defineEndpoint({
  ...userChange,
  method: 'POST',
  path: '/admin/users/:id/disable',
  action: 'admin.disable',
  summary: 'Disable an account: every session and token ends, sign-in is refused (administrators, sudo)',
  body: Type.Object({
    reason: Type.String({ minLength: 1, maxLength: 200 }),
    until: Type.Optional(
      Type.String({ maxLength: 64, description: 'ISO 8601, in the future; absent: until enabled' }),
    ),
  }),
  handler: (input) =>
    changeUser(input, 'answer.disabled', (target, by) => {
      const until = disabledUntil(input.body.until, input.services.clock.now());
      return disableUser(input.services, target, { reason: input.body.reason, until }, by);
    }),
});

const enable = defineEndpoint({
  ...userChange,
  method: 'POST',
  path: '/admin/users/:id/enable',
  action: 'admin.enable',
  summary: 'Enable a disabled account (administrators, sudo)',
  handler: (input) =>
    changeUser(input, 'answer.enabled', (target, by) => enableUser(input.services, target, by)),
});

const signOut = defineEndpoint({
  ...userChange,
  method: 'POST',
  path: '/admin/users/:id/sign-out',
  action: 'admin.sign_out',
  summary: 'End every session of a user (administrators, sudo)',
  handler: (input) =>
    changeUser(input, 'answer.signedOut', (target, by) => signOutUser(input.services, target, by)),
});

const impersonate = defineEndpoint({
  method: 'POST',
  path: '/admin/users/:id/impersonate',
  action: 'admin.impersonate',
  auth: 'admin',
  // Back from the sudo page, the admin lands on the user's page with "Act as" ready to confirm.
  sudoReturn: (params) => `/admin/users/${encodeURIComponent(params.id ?? '')}?act=1`,
  summary: 'Act as a user in this browser session, for a limited time (administrators, sudo)',
  description: 'The limit is `admin({ impersonationMinutes })`, 30 minutes by default.',
  params: UserId,
  failures: [403, 404, 409],
  responses: {
    200: Envelope({ data: Type.Object({ user_id: Type.Integer(), expires_at: Type.String() }) }),
  },
  rateLimit: userChange.rateLimit,
  page: adminUserPage,
  pageProps,
  async handler(input) {
    const admin = input.caller.user;
    if (input.caller.via !== 'session')
      throw new ForbiddenError(adminMessages.text('error.needsBrowser'), { action: 'admin.forbidden' });
    const target = await targetUser(input, admin);
    const now = input.services.clock.now().toISOString();
    if (target.active !== 1 || isDisabled(target, now))
      throw new ConflictError(adminMessages.text('error.inactive'));
    if (isAdmin(target)) throw new ConflictError(adminMessages.text('error.adminTarget'));
    const minutes = adminOptions(input.services).impersonationMinutes;
    const state = startImpersonation(input, admin, target, minutes);
    return {
      status: 'success',
      message: adminMessages.text('answer.actingAs', { username: target.username }),
      data: { user_id: target.id, expires_at: state.expiresAt },
      redirect_to: '/',
    };
  },
});

const stop = defineEndpoint({
  method: 'POST',
  path: '/admin/impersonation/stop',
  action: 'admin.impersonation_stop',
  auth: 'session',
  summary: 'Stop acting as another user: the session is the administrator’s again',
  failures: [403],
  responses: { 200: Envelope() },
  async handler(request) {
    const { caller } = request;
    const state = impersonationOf(request);
    // Only the session acting as someone else has anything to stop.
    if (!state || caller?.via !== 'session' || !caller.impersonator)
      throw new ForbiddenError(adminMessages.text('error.notActing'), { action: 'admin.forbidden' });
    const admin = await endImpersonation(request, state, 'stopped');
    return admin
      ? {
          status: 'success',
          message: adminMessages.text('answer.yourselfAgain'),
          redirect_to: `/admin/users/${state.userId}`,
        }
      : { status: 'success', message: adminMessages.text('answer.signedOutSelf'), redirect_to: '/login' };
  },
});

/** The admin plugin's endpoints. */
export const adminEndpoints = [list, show, disable, enable, signOut, impersonate, stop] as const;
