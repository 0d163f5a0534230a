import {
  selectUserWithFacts,
  type UserRecord,
  HttpError,
  TooManyRequestsError,
  FailureBudget,
  recordSecurityEvent,
  assertMaySignIn,
  type RequestContext,
} from '../../plugin-api.ts';
import { accountsOptions } from './options.ts';
import { accountsMessages } from './messages/index.ts';

export class InvalidCredentialsError extends HttpError {
  override name = 'InvalidCredentialsError';
  constructor() {
    super(401, accountsMessages.text('error.invalidCredentials'), {
      errors: { credentials: accountsMessages.text('error.credentials') },
    });
  }
}

/**
 * The pair key follows what was typed; the account key follows the account itself, so switching
 * between its email and its username does not double the hourly allowance.
 */
function limitKeys(identifier: string, ip: string, user: UserRecord | undefined) {
  const id = identifier.trim().toLowerCase();
  return {
    pair: `login:pair:${ip}:${id}`,
    account: user ? `user:${user.id}` : `id:${id}`,
  };
}

/**
 * Check a password sign-in. The same 401 for an unknown account and a wrong password, with a dummy
 * Argon2 verification so both take as long. Attempts are counted per (identifier, IP) before the
 * check, failures per account; over either limit the answer is 429. A disabled account with the
 * right password gets 403 unless it can still be activated (then the pipeline takes it).
 */
export async function verifyPasswordLogin(
  request: RequestContext,
  input: { identifier: string; password: string; ip: string; userAgent?: string | null },
): Promise<UserRecord> {
  const services = request.services;
  const limits = accountsOptions(services);
  // The facts the sign-in asks next (factors, devices) come with the user row: one statement.
  const user = await services.users.findByLogin(input.identifier, (query) =>
    selectUserWithFacts(request, query),
  );
  const keys = limitKeys(input.identifier, input.ip, user);
  // Count the attempt before the password is checked, on both counters: guesses sent all at once
  // must not pass a read-only check together (a correct one among them would then succeed past the
  // limit). Both counters in one statement.
  const account = new FailureBudget(
    services,
    'login:account',
    limits.loginFailuresPerAccount,
    limits.loginAccountWindowSeconds,
  );
  const [pair, attempt] = await services.rateLimiter.hitMany([
    { key: keys.pair, windowSeconds: limits.loginFailureWindowSeconds },
    account.counter(keys.account),
  ]);
  if (pair!.count > limits.loginFailuresPerIdentifierIp) {
    // Refused before any check: not a failure of the account.
    await account.notAFailure(keys.account);
    throw new TooManyRequestsError(pair!.retryAfter);
  }
  await account.admit(keys.account, attempt!);

  const ok = user?.password_hash
    ? await services.passwords.verify(user.password_hash, input.password)
    : await services.passwords.verifyDummy(input.password);

  if (!user || !ok) {
    // Not awaited: the answer for a known account must not take longer than for an unknown one.
    if (user)
      void recordSecurityEvent(services.db, services.clock, {
        userId: user.id,
        type: 'sign_in_failed',
        ip: input.ip,
        userAgent: input.userAgent ?? null,
        detail: { method: 'password' },
      }).catch((error: unknown) =>
        services.log.error({ err: { message: (error as Error).message } }, 'could not record an event'),
      );
    throw new InvalidCredentialsError();
  }
  // Not a failure for the account; and a success clears what this identifier and address spent,
  // so typos before it do not linger. One statement for both.
  await services.rateLimiter.settle({ release: [account.key(keys.account)], reset: [keys.pair] });
  assertMaySignIn(services, user);
  if (services.passwords.needsRehash(user.password_hash!)) {
    const rehashed = await services.passwords.hash(input.password);
    await services.users.setPasswordHash(user.id, rehashed);
    // The pending context is stamped from the stored hash (credential-stamp.ts): give it the new one.
    return { ...user, password_hash: rehashed };
  }
  return user;
}
