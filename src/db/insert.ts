import type { Insertable, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Most parameters one statement may carry: SQLite's default SQLITE_MAX_VARIABLE_NUMBER (32766),
 * the 16-bit parameter count of the PostgreSQL and MySQL protocols (65535). Multi-row inserts are
 * split into statements under it.
 */
export const PARAMETER_LIMITS = { sqlite: 32_766, postgres: 65_535, mysql: 65_535 } as const;

/**
 * Insert one row and return its generated id on every dialect: RETURNING where it exists
 * (PostgreSQL, SQLite), the driver's insert id on MySQL/MariaDB.
 */
export async function insertReturningId<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  values: Insertable<Database[T]>,
): Promise<number> {
  const adapter = db.getExecutor().adapter;
  if (adapter.supportsReturning) {
    // The dynamic table name defeats Kysely's column inference; the shape is checked by the signature.
    const row = await (
      db.insertInto(table).values(values) as unknown as {
        returning(c: 'id'): { executeTakeFirstOrThrow(): Promise<{ id: number }> };
      }
    )
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }
  const result = await db.insertInto(table).values(values).executeTakeFirstOrThrow();
  return Number(result.insertId);
}
