import { sql, type Expression, type RawBuilder } from 'kysely';
import { SQLITE_UNICODE_LOWER } from '../../db/open.ts';
import type { Dialect } from '../../db/url.ts';

/** The escape character of every LIKE the engine writes (one that needs no quoting on any dialect). */
export const LIKE_ESCAPE = '!';
const ESCAPE_CLAUSE = sql.raw(`'${LIKE_ESCAPE}'`);

/** `%`, `_` and the escape character itself match literally; the text is lower-cased here. */
export function likePattern(text: string, anchored: 'contains' | 'starts' = 'contains'): string {
  const escaped = text.toLowerCase().replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);
  return anchored === 'starts' ? `${escaped}%` : `%${escaped}%`;
}

/**
 * `column` lower-cased for every Unicode letter, LIKE a pattern from likePattern(): the one place
 * that decides how case-insensitive matching is written. SQLite's lower() folds ASCII only, so it
 * gets a function of our own (src/db/open.ts); PostgreSQL (UTF-8 ctype) and MySQL (utf8mb4) fold
 * Unicode. Accents always count: `elan` does not find `élan` on any dialect.
 */
export function caseInsensitiveLike(
  dialect: Dialect,
  column: Expression<unknown>,
  pattern: string,
): RawBuilder<boolean> {
  const lowered =
    dialect === 'sqlite'
      ? sql`${sql.raw(SQLITE_UNICODE_LOWER)}(${column})`
      : dialect === 'mysql'
        ? // A _ci collation would also match other accents (`elan` finding `élan`): compare code points.
          sql`lower(${column}) collate utf8mb4_bin`
        : sql`lower(${column})`;
  return sql<boolean>`${lowered} like ${pattern} escape ${ESCAPE_CLAUSE}`;
}
