import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The database dialect this test run uses: `CITADEL_TEST_DB` = sqlite (default), postgres or mysql.
 * `scripts/test.mjs` runs the suite once per reachable dialect.
 */
export type TestDialect = 'sqlite' | 'postgres' | 'mysql';

export function testDialect(): TestDialect {
  const value = process.env.CITADEL_TEST_DB ?? 'sqlite';
  if (value !== 'sqlite' && value !== 'postgres' && value !== 'mysql')
    throw new Error(`CITADEL_TEST_DB=${value}?`);
  return value;
}

export const POSTGRES_ADMIN_URL =
  process.env.CITADEL_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_ADMIN_URL = process.env.CITADEL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of the run's dialect, so test files never see each other's rows. */
export async function createTestDatabase(dialect: TestDialect = testDialect()): Promise<TestDatabase> {
  const name = `citadel_t_${randomBytes(6).toString('hex')}`;
  if (dialect === 'sqlite') {
    const file = join(tmpdir(), `${name}.sqlite`);
    return {
      url: `sqlite:${file}`,
      async drop() {
        for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      },
    };
  }
  if (dialect === 'postgres') {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await client.connect();
        try {
          // Closed pools finish disconnecting a moment after they resolve: wait for them rather
          // than cut them off (FORCE only as the last resort, for a test that leaked a pool).
          for (let attempt = 0; ; attempt++) {
            const { rows } = await client.query(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
              [name],
            );
            if (rows[0].n === 0 || attempt === 50) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
      await client.query(`DROP DATABASE IF EXISTS ${name}`);
      await client.end();
    },
  };
}
