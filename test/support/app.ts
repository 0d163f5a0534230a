import type { FastifyInstance } from 'fastify';
import { createServer, type CitadelServer, type CreateServerOptions } from '../../src/app/server.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';
import { MailCapture } from './mail.ts';
import { TestClient } from './client.ts';

export const TEST_SECRET = 'test-session-secret-that-is-long-enough-0123456789';
export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestApp {
  server: CitadelServer;
  app: FastifyInstance;
  services: CitadelServer['services'];
  clock: ManualClock;
  mail: MailCapture;
  database: TestDatabase;
  client(): TestClient;
  /** A user with password TEST_PASSWORD (or the one given), active unless told otherwise. */
  createUser(
    input?: Partial<{
      username: string;
      email: string;
      password: string | null;
      active: boolean;
      /** The account has proved its address (email_verified_at set). */
      emailVerified: boolean;
    }>,
  ): Promise<UserRecord>;
  /** A client signed in as `user` through POST /login. */
  signIn(user: UserRecord, password?: string): Promise<TestClient>;
  close(): Promise<void>;
}

export interface TestAppOptions extends CreateServerOptions {
  /** Reuse another test app's database (multi-instance tests); it is then not dropped on close. */
  sharedDatabase?: TestDatabase;
  sharedMail?: MailCapture;
  /** Extra routes for a test (registered before the server is ready). */
  routes?: (app: FastifyInstance) => void | Promise<void>;
}

let userCounter = 0;

/**
 * A Citadel server on a fresh database of the run's dialect, with a controllable clock, mail going
 * to a real SMTP capture on loopback, and quiet logs. Use `app.inject` through `client()`.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { sharedDatabase, sharedMail, routes, ...serverOptions } = options;
  const database = sharedDatabase ?? (await createTestDatabase());
  const mail = sharedMail ?? (await new MailCapture().start());
  const clock = (serverOptions.clock as ManualClock | undefined) ?? new ManualClock(Date.now());
  const server = await createServer({
    env: {},
    // CITADEL_TEST_LOG=error (or any pino level) shows the server's logs when a test needs explaining.
    logger: process.env.CITADEL_TEST_LOG ? { level: process.env.CITADEL_TEST_LOG } : false,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: TEST_SECRET,
    smtpUrl: mail.url,
    appUrl: 'http://localhost:3000',
    dataDir: '/tmp/citadel-test-data',
    ...serverOptions,
    clock,
  });
  await routes?.(server.app);
  await server.app.ready();
  const untrackMail = mail.trackSender(server.services.emails);

  const testApp: TestApp = {
    server,
    app: server.app,
    services: server.services,
    clock,
    mail,
    database,
    client: () => new TestClient(server.app),
    async createUser(input = {}) {
      userCounter += 1;
      const n = `${process.pid}${userCounter}`;
      const password = input.password === undefined ? TEST_PASSWORD : input.password;
      const user = await server.services.users.create({
        username: input.username ?? `user${n}`,
        email: input.email ?? `user${n}@example.com`,
        passwordHash: password === null ? null : await server.services.passwords.hash(password),
        active: input.active ?? true,
      });
      if (!input.emailVerified) return user;
      await server.services.users.markEmailVerified(user.id);
      return (await server.services.users.findById(user.id))!;
    },
    async signIn(user, password = TEST_PASSWORD) {
      const client = testApp.client();
      const response = await client.post('/login', { email: user.email, password });
      if (response.status !== 200 || response.body?.action !== 'login.attempt') {
        throw new Error(`sign-in failed: ${response.status} ${response.text}`);
      }
      return client;
    },
    async close() {
      untrackMail();
      await server.close();
      if (!sharedMail) await mail.stop();
      if (!sharedDatabase) await database.drop();
    },
  };
  return testApp;
}
