import { sql, type Kysely } from 'kysely';
import type { Dialect } from './url.ts';
import { SQLITE_UNICODE_LOWER } from './sqlite/functions.ts';

/** What `createSearchIndex` indexes: a table and its resource's `searchable` columns. */
export interface SearchIndexSpec {
  table: string;
  /** The resource's `searchable` columns (text). */
  columns: readonly string[];
  /** An integer primary key (SQLite's FTS5 keys its rows by it). Default `id`. */
  primaryKey?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkNames(spec: SearchIndexSpec): void {
  for (const name of [spec.table, spec.primaryKey ?? 'id', ...spec.columns]) {
    if (!NAME.test(name)) throw new Error(`search index: "${name}" is not a plain identifier`);
  }
  if (spec.columns.length === 0) throw new Error(`search index on ${spec.table}: no columns`);
}

/** SQLite: the FTS5 table holding the trigrams of a table's searchable columns. */
export function ftsTableName(table: string): string {
  return `${table}_search`;
}

/** PostgreSQL: the trigram index of one column. */
export function trigramIndexName(table: string, column: string): string {
  return `${table}_${column}_trgm`;
}

/**
 * For a migration: what `search` needs to be served by an index on this dialect.
 * - SQLite: a contentless FTS5 table with the `trigram` tokenizer over the columns lower-cased
 *   (only the trigrams are stored, not the text again), kept in sync by triggers, filled from the
 *   rows present. The triggers call `unicode_lower`, which Citadel registers on its connections:
 *   another program writing to the table needs the same function.
 * - PostgreSQL: the `pg_trgm` extension and a GIN trigram index on `lower(column)` per column
 *   (the expression the engine searches). Creating the extension needs a role allowed to (a
 *   superuser, or the database owner on PostgreSQL 13+, where pg_trgm is a trusted extension).
 * - MySQL/MariaDB: nothing; no index serves a substring search there, and the engine bounds the
 *   scan with `max_statement_time` instead.
 */
export async function createSearchIndex(
  db: Kysely<unknown>,
  dialect: Dialect,
  spec: SearchIndexSpec,
): Promise<void> {
  checkNames(spec);
  const { table, columns } = spec;
  const key = spec.primaryKey ?? 'id';
  if (dialect === 'sqlite') {
    const fts = ftsTableName(table);
    const list = columns.join(', ');
    // The index holds the text lower-cased as the engine's search compares it (unicode_lower, the
    // function every Citadel connection registers), so the index's candidates are a superset of
    // the rows the substring condition keeps: FTS5's own case folding works one code point at a
    // time, JavaScript's does not (`İ` becomes `i̇`, two code points).
    const lowered = (prefix: string) =>
      columns.map((c) => `${SQLITE_UNICODE_LOWER}(${prefix}${c})`).join(', ');
    const statements = [
      `create virtual table ${fts} using fts5(${list}, content='', tokenize='trigram')`,
      `create trigger ${fts}_insert after insert on ${table} begin
         insert into ${fts}(rowid, ${list}) values (new.${key}, ${lowered('new.')}); end`,
      `create trigger ${fts}_delete after delete on ${table} begin
         insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.${key}, ${lowered('old.')}); end`,
      `create trigger ${fts}_update after update of ${key}, ${list} on ${table} begin
         insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.${key}, ${lowered('old.')});
         insert into ${fts}(rowid, ${list}) values (new.${key}, ${lowered('new.')}); end`,
      `insert into ${fts}(rowid, ${list}) select ${key}, ${lowered('')} from ${table}`,
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
    return;
  }
  if (dialect === 'postgres') {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const column of columns) {
      await sql
        .raw(
          `create index if not exists ${trigramIndexName(table, column)} on ${table} using gin (lower(${column}) gin_trgm_ops)`,
        )
        .execute(db);
    }
  }
}

/** The reverse of createSearchIndex, for a migration's `down`. */
export async function dropSearchIndex(
  db: Kysely<unknown>,
  dialect: Dialect,
  spec: SearchIndexSpec,
): Promise<void> {
  checkNames(spec);
  if (dialect === 'sqlite') {
    const fts = ftsTableName(spec.table);
    for (const suffix of ['insert', 'delete', 'update'])
      await sql.raw(`drop trigger if exists ${fts}_${suffix}`).execute(db);
    await sql.raw(`drop table if exists ${fts}`).execute(db);
    return;
  }
  if (dialect === 'postgres') {
    for (const column of spec.columns)
      await sql.raw(`drop index if exists ${trigramIndexName(spec.table, column)}`).execute(db);
  }
}
