import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import { HttpError, ForbiddenError, TooManyRequestsError } from '../../core/errors.ts';

export class InvalidCredentialsError extends HttpError {
  override name = 'InvalidCredentialsError';
  constructor() {
    super(401, 'Invalid credentials.', {
      errors: { credentials: 'The email, username or password is incorrect.' },
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
    account: user ? `login:account:user:${user.id}` : `login:account:${id}`,
  };
}

/**
 * Check a password sign-in. The same 401 for an unknown account and a wrong password, with a dummy
 * Argon2 verification so both take as long. Attempts are counted per (identifier, IP) before the
 * check, failures per account; over either limit the answer is 429. A disabled account with the
 * right password gets 403 unless it can still be activated (then the pipeline takes it).
 */
export async function verifyPasswordLogin(
  services: CitadelServices,
  input: { identifier: string; password: string; ip: string },
): Promise<UserRecord> {
  const { limits } = services.config;
  const user = await services.users.findByLogin(input.identifier);
  const keys = limitKeys(input.identifier, input.ip, user);
  await services.rateLimiter.check(keys.account, limits.loginFailuresPerAccount);
  // Count the attempt before the password is checked: guesses sent all at once must not pass a
  // read-only check together (a correct one among them would then succeed past the limit).
  const pair = await services.rateLimiter.hit(keys.pair, limits.loginFailureWindow);
  if (pair.count > limits.loginFailuresPerIdentifierIp) throw new TooManyRequestsError(pair.retryAfter);

  const ok = user?.password_hash
    ? await services.passwords.verify(user.password_hash, input.password)
    : await services.passwords.verifyDummy(input.password);

  if (!user || !ok) {
    await services.rateLimiter.hit(keys.account, limits.loginAccountWindow);
    throw new InvalidCredentialsError();
  }

  // A success clears what this identifier and address spent, so typos before it do not linger.
  await services.rateLimiter.reset(keys.pair);
  assertMaySignIn(services, user);
  if (services.passwords.needsRehash(user.password_hash!)) {
    await services.users.setPasswordHash(user.id, await services.passwords.hash(input.password));
  }
  return user;
}

/** A disabled account may sign in only to finish its activation (when activation is configured). */
export function assertMaySignIn(services: CitadelServices, user: UserRecord): void {
  if (user.active !== 1 && !canBeActivated(services)) throw new ForbiddenError('This account is disabled.');
}

/** With email activation configured, an inactive account is one that has not finished activating. */
export function canBeActivated(services: CitadelServices): boolean {
  const { registerActions, loginActions } = services.config;
  return registerActions.includes('email_activation') || loginActions.includes('email_activation');
}
