import type { TestApp } from './app.ts';

/** A user's security events as stored, oldest first. */
export async function storedEvents(t: TestApp, userId: number | null) {
  let query = t.services.db.selectFrom('security_events').selectAll().orderBy('id');
  query = userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', userId);
  return (await query.execute()).map((row) => ({
    ...row,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  }));
}

export async function eventTypes(t: TestApp, userId: number): Promise<string[]> {
  return (await storedEvents(t, userId)).map((e) => e.type);
}

export const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
export const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
