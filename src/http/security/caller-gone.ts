import type { FastifyRequest } from 'fastify';
import { isForeignKeyViolation } from '../../db/errors.ts';

/**
 * A request racing the deletion of its own account answers 401, never 500. A write
 * made for a user who was deleted meanwhile fails on the user's foreign key; this tells that case
 * (the user the request acts for no longer exists) from a real fault. Asked only on the error path.
 */
export async function callerIsGone(request: FastifyRequest, error: unknown): Promise<boolean> {
  if (!isForeignKeyViolation(error)) return false;
  const userId = request.caller?.user.id ?? request.session?.userId ?? null;
  if (userId === null) return false;
  const row = await request.server.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row === undefined;
}
