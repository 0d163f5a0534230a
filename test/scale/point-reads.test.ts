// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { PointReads } from '../../src/db/sqlite/point-reads.ts';

/**
 * Which SQLite statements run on the main thread (src/db/sqlite/point-reads.ts): only those whose
 * plan reads at most one row per lookup. A session joined to its user must qualify (GET /me would
 * otherwise queue behind a long list on the reader threads); a count over a non-unique index must
 * not (it may read most of a table on the event loop).
 */
describe('SQLite point reads: decided from the query plan', () => {
  let dir: string;
  let db: SQLite.Database;
  let points: PointReads;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'citadel-points-'));
    db = new SQLite(join(dir, 'db.sqlite'));
    db.exec(`
      create table users (id integer primary key, email text unique, name text);
      create table sessions (id text primary key, user_id integer references users(id), data text);
      create table posts (id integer primary key, status text, author_id integer, slug text, lang text, created_at text);
      create index posts_status on posts (status, created_at);
      create unique index posts_slug_lang on posts (slug, lang);
      insert into users (email, name) values ('a@example.com', 'a');
      insert into sessions values ('s1', 1, '{}');
      insert into posts (status, author_id, slug, lang, created_at) values ('published', 1, 'x', 'en', '2026');
    `);
    points = new PointReads(new SQLite(join(dir, 'db.sqlite'), { readonly: true }));
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const onMainThread = (sql: string, ...parameters: unknown[]) =>
    points.tryRun(sql, parameters) !== undefined;

  it('takes lookups of at most one row per step, the session joined to its user included', () => {
    expect(onMainThread('select * from posts where id = ?', 1)).toBe(true);
    expect(onMainThread('select * from users where email = ?', 'a@example.com')).toBe(true);
    expect(
      onMainThread(
        'select users.*, sessions.data from sessions left join users on users.id = sessions.user_id where sessions.id = ?',
        's1',
      ),
    ).toBe(true);
    expect(onMainThread('select * from posts where slug = ? and lang = ?', 'x', 'en')).toBe(true);
    expect(points.tryRun('select name from users where id = ?', [1])).toEqual([{ name: 'a' }]);
  });

  it('leaves scans, ranges, sorts and non-unique lookups to the reader threads', () => {
    expect(onMainThread('select count(*) from posts where status = ?', 'published')).toBe(false);
    expect(onMainThread('select * from posts where slug = ?', 'x')).toBe(false);
    expect(onMainThread('select * from posts where author_id = ?', 1)).toBe(false);
    expect(onMainThread('select * from posts where id > ?', 0)).toBe(false);
    expect(onMainThread('select * from posts order by created_at')).toBe(false);
    expect(onMainThread('select count(*) from posts')).toBe(false);
  });

  it('judges a statement again after a while: an index added later makes it a point read', () => {
    // A stepped clock: a busy machine must not turn "still holds" into "expired".
    let clock = 0;
    const judged = new PointReads(new SQLite(join(dir, 'db.sqlite'), { readonly: true }), {
      verdictMs: 50,
      now: () => clock,
    });
    const byLang = (value: string) =>
      judged.tryRun('select id from posts where lang = ?', [value]) !== undefined;
    expect(byLang('en')).toBe(false);
    db.exec('create unique index posts_lang on posts (lang)');
    try {
      clock += 49;
      expect(byLang('en')).toBe(false); // the verdict still holds
      clock += 11;
      expect(byLang('en')).toBe(true);
    } finally {
      db.exec('drop index posts_lang');
    }
  });
});
