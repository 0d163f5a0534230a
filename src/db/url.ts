import { ConfigError } from '../core/errors.ts';

/** The database families Citadel runs on. */
export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface DatabaseLocation {
  dialect: Dialect;
  /** SQLite: a file path or ':memory:'. Others: the URL as given. */
  target: string;
}

/** Parse DATABASE_URL: `sqlite:<path>`, `sqlite::memory:`, `postgres://…`, `mysql://…`. */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (url.startsWith('sqlite:')) {
    const target = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!target) throw new ConfigError(`DATABASE_URL: missing SQLite path in "${url}"`);
    return { dialect: 'sqlite', target };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL: "${redactUrl(url)}"`);
  }
  if (parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:')
    return { dialect: 'postgres', target: url };
  if (parsed.protocol === 'mysql:' || parsed.protocol === 'mariadb:') {
    return { dialect: 'mysql', target: url.replace(/^mariadb:/, 'mysql:') };
  }
  throw new ConfigError(
    `DATABASE_URL: unsupported scheme "${parsed.protocol}" (use sqlite:, postgres:// or mysql://)`,
  );
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
