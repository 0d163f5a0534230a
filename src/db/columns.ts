import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from './url.ts';

/**
 * Column helpers that hide the dialects' differences, for migrations.
 * Keep indexed strings at or under 191 characters: MySQL's utf8mb4 index limit.
 */
export function idColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  if (dialect === 'postgres') return table.addColumn('id', 'serial', (c) => c.primaryKey());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** A foreign key to users.id, removed with its user. */
export function userIdColumn(c: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
  return c.notNull().references('users.id').onDelete('cascade');
}

/** Long text: TEXT everywhere (MySQL TEXT holds 64 KiB, MEDIUMTEXT 16 MiB). */
export function longText(dialect: Dialect) {
  return dialect === 'mysql' ? sql`mediumtext` : sql`text`;
}

/** Timestamps are ISO strings: `2026-11-22T10:00:00.000Z`. */
export const TIMESTAMP = 'varchar(32)' as const;

/**
 * MySQL/MariaDB: a NOT NULL string column compared byte for byte (binary collation), for lookup
 * keys that must not match case or accent variants. For `ALTER TABLE … MODIFY col ${…}`.
 */
export function mysqlExactText(type: string) {
  return sql.raw(`${type} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`);
}
