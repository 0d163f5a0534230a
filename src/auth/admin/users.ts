import { sql, type Kysely } from 'kysely';
import {
  type Database,
  type CitadelServices,
  changeWithEvent,
  type EventOrigin,
  isDisabled,
  type UserRecord,
  pagePagination,
  type PagePagination,
} from '../../plugin-api.ts';

/** A user as the administration lists it. */
export interface AdminUserView {
  id: number;
  username: string;
  email: string;
  active: boolean;
  role: string;
  disabled_until: string | null;
  created_at: string;
  last_sign_in_at: string | null;
}

export interface AdminUserPage {
  users: AdminUserView[];
  pagination: PagePagination;
}

/**
 * `disabled_until` as the list shows it: null for an account that is not disabled now, the end of a
 * disabling for a time, and the far future for one disabled until enabled.
 */
export const DISABLED_INDEFINITELY = '9999-12-31T23:59:59.999Z';

export function disabledUntil(user: Pick<UserRecord, 'disabled_at' | 'disabled_until'>, now: string) {
  if (!isDisabled(user, now)) return null;
  return user.disabled_until ?? DISABLED_INDEFINITELY;
}

/** `%`, `_` and the escape character itself, escaped for LIKE … ESCAPE '!' (the same on every dialect). */
function likeContaining(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** One page of users, oldest first, optionally those whose username or email contains `search`. */
export async function listUsers(
  db: Kysely<Database>,
  now: string,
  input: { search?: string; id?: number; page: number; limit: number },
): Promise<AdminUserPage> {
  const { page, limit } = input;
  const search = input.search?.trim().toLowerCase();
  let base = db.selectFrom('users');
  if (input.id !== undefined) base = base.where('users.id', '=', input.id);
  if (search) {
    const pattern = likeContaining(search);
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`${eb.ref('users.username_normalized')} like ${pattern} escape '!'`,
        sql<boolean>`${eb.ref('users.email')} like ${pattern} escape '!'`,
      ]),
    );
  }
  const rows = await base
    .select([
      'users.id',
      'users.username',
      'users.email',
      'users.active',
      'users.role',
      'users.disabled_at',
      'users.disabled_until',
      'users.created_at',
    ])
    .select((eb) =>
      eb
        .selectFrom('security_events')
        .select((inner) => inner.fn.max('security_events.created_at').as('at'))
        .whereRef('security_events.user_id', '=', 'users.id')
        .where('security_events.type', '=', 'sign_in')
        .as('last_sign_in_at'),
    )
    .orderBy('users.id', 'asc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  const count = await base.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst();
  const total = Number(count?.total ?? 0);
  return {
    users: rows.map((row) => ({
      id: Number(row.id),
      username: row.username,
      email: row.email,
      active: Number(row.active) === 1,
      role: row.role,
      disabled_until: disabledUntil(row, now),
      created_at: row.created_at,
      last_sign_in_at: (row.last_sign_in_at as string | null) ?? null,
    })),
    pagination: pagePagination(page, limit, total),
  };
}

/** Everything that lets the user in without signing in again: remember-me and personal access tokens. */
async function endCredentials(db: Kysely<Database>, userId: number): Promise<void> {
  await db.deleteFrom('remember_tokens').where('user_id', '=', userId).execute();
}

export interface AdminAction {
  admin: UserRecord;
  origin: EventOrigin;
}

/**
 * Disable an account: the mark, the end of its remember-me and personal access tokens and the
 * event commit together; then every session ends (the database or Redis store). Its service
 * tokens are refused from now on: this process forgets the user at once, others within a second
 * (service-tokens/callers.ts).
 */
export async function disableUser(
  services: CitadelServices,
  target: UserRecord,
  input: { reason: string; until: string | null },
  { admin, origin }: AdminAction,
): Promise<void> {
  const now = services.clock.now().toISOString();
  await changeWithEvent(
    services,
    {
      userId: target.id,
      type: 'account_disabled',
      ...origin,
      detail: { admin_id: admin.id, reason: input.reason, until: input.until },
    },
    async (db) => {
      await db
        .updateTable('users')
        .set({ disabled_at: now, disabled_until: input.until, updated_at: now })
        .where('id', '=', target.id)
        .execute();
      await endCredentials(db, target.id);
      await db.deleteFrom('personal_access_tokens').where('user_id', '=', target.id).execute();
    },
  );
  await services.users.changed(target.id);
  await services.sessions.destroyForUser(target.id);
}

export async function enableUser(
  services: CitadelServices,
  target: UserRecord,
  { admin, origin }: AdminAction,
): Promise<void> {
  const now = services.clock.now().toISOString();
  await changeWithEvent(
    services,
    { userId: target.id, type: 'account_enabled', ...origin, detail: { admin_id: admin.id } },
    (db) =>
      db
        .updateTable('users')
        .set({ disabled_at: null, disabled_until: null, updated_at: now })
        .where('id', '=', target.id)
        .execute(),
  );
  await services.users.changed(target.id);
}

/** Sign the user out everywhere: every session and remember-me token (tokens stay: they are not sessions). */
export async function signOutUser(
  services: CitadelServices,
  target: UserRecord,
  { admin, origin }: AdminAction,
): Promise<void> {
  await changeWithEvent(
    services,
    { userId: target.id, type: 'signed_out_by_admin', ...origin, detail: { admin_id: admin.id } },
    (db) => endCredentials(db, target.id),
  );
  await services.sessions.destroyForUser(target.id);
}
