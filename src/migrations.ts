/**
 * Helpers for an application's own migrations (`migrations: [...]` in the config), so its tables
 * use the same column conventions as Citadel's on SQLite, PostgreSQL and MySQL/MariaDB.
 * @packageDocumentation
 */
export { idColumn, userIdColumn, longText, TIMESTAMP, mysqlExactText } from './db/columns.ts';
export type { CitadelMigration } from './db/migrations/types.ts';
export type { Dialect } from './db/url.ts';
