import { sql, type Kysely } from 'kysely';

const answers = new WeakMap<object, Promise<boolean>>();

/**
 * Whether a MySQL-protocol database is MariaDB (asked once per database). MariaDB 10.5+ has
 * `INSERT … RETURNING` (also with `ON DUPLICATE KEY UPDATE`), which Kysely's MySQL adapter does
 * not claim because MySQL lacks it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table set: only version() is read
export function isMariaDb(db: Kysely<any>): Promise<boolean> {
  const key = db.getExecutor().adapter;
  let answer = answers.get(key);
  if (!answer) {
    answer = sql<{ v: string }>`select version() as v`
      .execute(db)
      .then(({ rows }) => /mariadb/i.test(rows[0]?.v ?? ''))
      .catch(() => false);
    answers.set(key, answer);
  }
  return answer;
}
