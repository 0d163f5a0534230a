import {
  sql,
  type AliasableExpression,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SelectQueryBuilder,
} from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { UserRecord } from './users.ts';
import type { RequestContext } from './request-context.ts';

/**
 * A yes/no fact about a user that a sign-in needs once its credential is right (an enrolled
 * factor, a device seen before). Plugins declare them; every fact of a sign-in is read in one
 * statement, with the user row when the sign-in starts from a lookup by identifier.
 */
export type SignInFact = (
  eb: ExpressionBuilder<Database, never>,
  userId: Expression<number>,
  request: RequestContext,
) => AliasableExpression<unknown>;

/** The sign-in facts of one user, by name (true or false). */
export type SignInFacts = Record<string, boolean>;

/** Columns named `fact:<name>` beside the user's own. */
const COLUMN = 'fact:';

function selections(
  request: RequestContext,
  eb: ExpressionBuilder<Database, never>,
  userId: Expression<number>,
) {
  return Object.entries(request.services.signInFacts).map(([name, fact]) =>
    fact(eb, userId, request).as(`${COLUMN}${name}`),
  );
}

/** Booleans on PostgreSQL, 0/1 on SQLite and MySQL. */
function collect(row: Record<string, unknown>): { facts: SignInFacts; rest: Record<string, unknown> } {
  const facts: SignInFacts = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(COLUMN)) facts[key.slice(COLUMN.length)] = Number(value) === 1;
    else rest[key] = value;
  }
  return { facts, rest };
}

/**
 * Add the sign-in facts to a `select * from users` and keep them for this request, so the sign-in
 * that follows asks nothing more. Returns the user row without the fact columns.
 */
export async function selectUserWithFacts(
  request: RequestContext,
  query: SelectQueryBuilder<Database, 'users', UserRecord>,
): Promise<UserRecord | undefined> {
  const row = (await query
    .select((eb) => selections(request, eb as never, sql.ref<number>('users.id')))
    .executeTakeFirst()) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const { facts, rest } = collect(row);
  const user = rest as unknown as UserRecord;
  request.signInFactsRead = { userId: user.id, facts };
  return user;
}

/** The sign-in facts of `user`: read with the user when they were, else in one statement now. */
export async function signInFactsFor(request: RequestContext, user: UserRecord): Promise<SignInFacts> {
  const read = request.signInFactsRead;
  if (read && read.userId === user.id) return read.facts;
  if (Object.keys(request.services.signInFacts).length === 0) return {};
  const db: Kysely<Database> = request.services.db;
  const row = (await db
    .selectNoFrom((eb) => selections(request, eb as never, sql.val(user.id)))
    .executeTakeFirstOrThrow()) as Record<string, unknown>;
  const { facts } = collect(row);
  request.signInFactsRead = { userId: user.id, facts };
  return facts;
}

/** A change made them stale (a factor enrolled during the sign-in): the next ask reads again. */
export function forgetSignInFacts(request: RequestContext): void {
  request.signInFactsRead = null;
}
