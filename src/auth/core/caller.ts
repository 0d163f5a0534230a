import type { Caller, UserRecord } from '../../http/security/caller.ts';
import { hasAbility } from './abilities.ts';
import { AuthenticationRequiredError, HttpError, InsufficientScopeError } from '../../core/errors.ts';
import type { RequestContext } from './request-context.ts';
import type { CitadelServices } from './services.ts';
import { isDisabled } from './users.ts';

export type { Caller } from '../../http/security/caller.ts';

/**
 * A plugin's verifier of bearer credentials of its own kind (`CitadelPlugin.bearer`; the service
 * tokens' JWTs): `undefined` when `token` is not of its kind (the next verifier, then personal
 * access tokens, are asked), `null` when it is but does not verify (401), else the caller.
 */
export type BearerVerifier = (
  token: string,
  services: CitadelServices,
) => Promise<Caller | null | undefined> | undefined;

/** A user who may act: active, and not disabled by an administrator. */
function mayAct(services: CitadelServices, user: UserRecord): boolean {
  return user.active === 1 && !isDisabled(user, services.clock.now().toISOString());
}

const BEARER = /^Bearer ([^\s]+)$/i;

/** 401 for a malformed, expired or revoked bearer token (RFC 6750 §3.1 `invalid_token`). */
export class InvalidTokenError extends HttpError {
  override name = 'InvalidTokenError';
  constructor() {
    super(401, 'Invalid or expired token.', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
}

/**
 * Resolve the caller: an `Authorization: Bearer` token if the header is present (and then only
 * that: a bad token is a 401, never a fall-back to the cookie), else the session's user.
 * Tokens are accepted only in the header, never in the query string.
 */
export async function resolveCaller(request: RequestContext): Promise<Caller | null> {
  const services = request.services;
  const header = request.authorization;
  if (header !== undefined) {
    const match = BEARER.exec(header);
    if (!match) throw new InvalidTokenError();
    for (const verify of services.bearerVerifiers) {
      const caller = await verify(match[1]!, services);
      if (caller === undefined) continue;
      if (caller === null || !mayAct(services, caller.user)) throw new InvalidTokenError();
      return caller;
    }
    const verified = await services.tokens.verify(match[1]!);
    if (!verified) throw new InvalidTokenError();
    const user = verified.user;
    if (!mayAct(services, user)) throw new InvalidTokenError();
    return { via: 'token', user, token: verified.record };
  }
  const userId = request.session.userId;
  if (userId === null) return null;
  // Read with the session when the store could join it (database store), else now.
  const loaded = request.session.loadedUser;
  const user = loaded && loaded.id === userId ? loaded : await services.users.findById(userId);
  if (!user || !mayAct(services, user)) {
    request.session.clear();
    return null;
  }
  return { via: 'session', user, token: null };
}

/** The caller, or 401. */
export function requireCaller(request: { caller: Caller | null }): Caller {
  if (!request.caller) throw new AuthenticationRequiredError();
  return request.caller;
}

/** A session caller (not a token), or 401: for pages and flows that only make sense in a browser. */
export function requireSessionUser(request: { caller: Caller | null }): UserRecord {
  const caller = request.caller;
  if (!caller || caller.via !== 'session') throw new AuthenticationRequiredError();
  return caller.user;
}

/** For token callers, the ability or 403; session callers hold every ability of their user. */
export function requireAbility(request: { caller: Caller | null }, ability: string): Caller {
  const caller = requireCaller(request);
  if (caller.via !== 'session' && !hasAbility(caller.token.abilities, ability)) {
    throw new InsufficientScopeError(ability);
  }
  return caller;
}
