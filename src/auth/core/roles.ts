import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { normalizeEmail } from './users.ts';

/** The roles a user may have. */
export type Role = 'user' | 'admin';

/** Whether the user is an administrator. */
export function isAdmin(user: { role: string }): boolean {
  return user.role === 'admin';
}

/** Give the account with `email` the admin role; false when there is no such account. */
export async function grantAdminRole(db: Kysely<Database>, email: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ role: 'admin' })
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 || (await hasRole(db, email, 'admin'));
}

async function hasRole(db: Kysely<Database>, email: string, role: Role): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('role')
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  return row?.role === role;
}

/**
 * `ADMIN_EMAILS` (comma- or space-separated), at start: the accounts that have proved a listed
 * address (`email_verified_at`) get the admin role. A listed address not proved gives nothing; an
 * account proving one later becomes an admin then (`UserService.markEmailVerified`). Returns the
 * listed addresses.
 */
export async function grantAdminEmails(db: Kysely<Database>, list: string | undefined): Promise<string[]> {
  const emails = (list ?? '')
    .split(/[\s,]+/)
    .map(normalizeEmail)
    .filter((email) => email !== '');
  if (emails.length === 0) return [];
  await db
    .updateTable('users')
    .set({ role: 'admin' })
    .where('email', 'in', emails)
    .where('email_verified_at', 'is not', null)
    .execute();
  return emails;
}
