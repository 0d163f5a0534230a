// Better Auth on SQLite (better-sqlite3), email and password enabled, its own rate limiter off
// (Citadel's bench client is one address; a limiter would measure refusals). Started by
// bench/peers.ts with PORT, DB_FILE and BETTER_AUTH_SECRET; prints "listening" when ready.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

const port = Number(process.env.PORT);
const database = new Database(process.env.DB_FILE);
database.pragma('journal_mode = WAL');

const auth = betterAuth({
  database,
  secret: process.env.BETTER_AUTH_SECRET,
  baseURL: `http://127.0.0.1:${port}`,
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

createServer(toNodeHandler(auth)).listen(port, '127.0.0.1', () => console.log('listening'));
