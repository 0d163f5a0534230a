/**
 * `npx tsx bench/languages.ts`: the cost of writing in another language on the hot path. GET /me
 * (JSON) and the set-password page, signed in, with `Accept-Language: en` against `de`, in process
 * (`inject`, SQLite), in alternating rounds so that machine load falls on both sides alike; prints
 * each side's median time per request and the ratio de/en. BENCH_ROUNDS (default 12),
 * BENCH_REQUESTS per round and side (default 300).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startTestApp } from '../test/support/app.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);

async function main(): Promise<void> {
  process.env.CITADEL_TEST_DB ??= 'sqlite';
  const t = await startTestApp();
  try {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const cases = [
      { name: 'GET /me', url: '/me', accept: 'application/json' },
      { name: 'GET /set-password (page)', url: '/set-password', accept: 'text/html' },
    ];
    console.log(`| case | en ms/request | de ms/request | de/en | load |`);
    console.log(`|---|---:|---:|---:|---:|`);
    for (const { name, url, accept } of cases) {
      const times: Record<'en' | 'de', number[]> = { en: [], de: [] };
      const round = async (lang: 'en' | 'de') => {
        const started = performance.now();
        for (let i = 0; i < REQUESTS; i++) {
          const response = await t.app.inject({
            method: 'GET',
            url,
            headers: { accept, cookie, 'accept-language': lang },
          });
          if (response.statusCode !== 200) throw new Error(`${url} (${lang}): ${response.statusCode}`);
        }
        times[lang].push((performance.now() - started) / REQUESTS);
      };
      await round('en'); // warm-up, not counted
      times.en.length = 0;
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate which side goes first.
        for (const lang of i % 2 === 0 ? (['en', 'de'] as const) : (['de', 'en'] as const)) await round(lang);
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const en = median(times.en);
      const de = median(times.de);
      console.log(
        `| ${name} | ${en.toFixed(3)} | ${de.toFixed(3)} | ${(de / en).toFixed(3)} | ${loadavg()[0]!.toFixed(1)} |`,
      );
    }
  } finally {
    await t.close();
  }
}

await main();
