import type { Caller, UserRecord } from '../../http/security/caller.ts';
import type { Session } from '../../http/sessions/session.ts';
import { hasAbility } from './abilities.ts';
import { AuthenticationRequiredError, HttpError, InsufficientScopeError } from '../../core/errors.ts';
import type { RequestContext } from './request-context.ts';
import type { CitadelServices } from './services.ts';
import { isDisabled } from './users.ts';
import { authMessages } from './messages/index.ts';

export type { Caller } from '../../http/security/caller.ts';

/**
 * A plugin's verifier of bearer credentials of its own kind (`CitadelPlugin.bearer`; the service
 * tokens' JWTs): `undefined` when `token` is not of its kind (the next verifier, then personal
 * access tokens, are asked), `null` when it is but does not verify (401), else the caller; without
 * a promise when it can decide from memory.
 */
export type BearerVerifier = (
  token: string,
  services: CitadelServices,
) => Caller | null | Promise<Caller | null | undefined> | undefined;

/** A user who may act: active, and not disabled by an administrator. */
function mayAct(services: CitadelServices, user: UserRecord): boolean {
  if (user.active !== 1) return false;
  // The clock is read only for a disabled account (most requests: none).
  return user.disabled_at === null || !isDisabled(user, services.clock.now().toISOString());
}

const BEARER = /^Bearer ([^\s]+)$/i;

/** 401 for a malformed, expired or revoked bearer token (RFC 6750 §3.1 `invalid_token`). */
export class InvalidTokenError extends HttpError {
  override name = 'InvalidTokenError';
  constructor() {
    super(401, authMessages.text('token.invalid'), {
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
  if (header !== undefined) return bearerCaller(services, header);
  const known = sessionCaller(services, request.session);
  if (known !== undefined) return known;
  const userId = request.session.userId;
  if (userId === null) return null;
  // The store could not join the user to the session (Redis): read it now.
  return sessionUserCaller(services, request.session, await services.users.findById(userId));
}

/**
 * The caller of a session whose user was read with it (the database store joins it), or null for
 * no caller; `undefined` when the user is still to be read (a store that cannot join it).
 */
export function sessionCaller(services: CitadelServices, session: Session): Caller | null | undefined {
  const userId = session.userId;
  if (userId === null) return null;
  const loaded = session.loadedUser;
  if (!loaded || loaded.id !== userId) return undefined;
  return sessionUserCaller(services, session, loaded);
}

/** The session's user as the caller, or null (and the session cleared) when they may not act. */
function sessionUserCaller(
  services: CitadelServices,
  session: Session,
  user: UserRecord | undefined,
): Caller | null {
  if (!user || !mayAct(services, user)) {
    session.clear();
    return null;
  }
  return { via: 'session', user, token: null };
}

/**
 * The caller of an `Authorization` header, or a throw (401): without a promise when a plugin's
 * verifier decides from memory (a service token seen before), else a promise.
 */
export function bearerCaller(services: CitadelServices, header: string): Caller | Promise<Caller> {
  const match = BEARER.exec(header);
  if (!match) throw new InvalidTokenError();
  return fromVerifiers(services, match[1]!, 0);
}

function fromVerifiers(services: CitadelServices, token: string, from: number): Caller | Promise<Caller> {
  const verifiers = services.bearerVerifiers;
  for (let i = from; i < verifiers.length; i++) {
    const result = verifiers[i]!(token, services);
    if (result === undefined) continue;
    if (result instanceof Promise)
      return result.then((caller) =>
        caller === undefined ? fromVerifiers(services, token, i + 1) : mayActAs(services, caller),
      );
    return mayActAs(services, result);
  }
  return personalAccessTokenCaller(services, token);
}

function mayActAs(services: CitadelServices, caller: Caller | null): Caller {
  if (caller === null || !mayAct(services, caller.user)) throw new InvalidTokenError();
  return caller;
}

async function personalAccessTokenCaller(services: CitadelServices, token: string): Promise<Caller> {
  const verified = await services.tokens.verify(token);
  if (!verified) throw new InvalidTokenError();
  const user = verified.user;
  if (!mayAct(services, user)) throw new InvalidTokenError();
  return { via: 'token', user, token: verified.record };
}

/** The caller, or 401. */
export function requireCaller(request: { caller: Caller | null }): Caller {
  const caller = request.caller;
  if (!caller) throw new AuthenticationRequiredError();
  // A credential made for another resource (an OAuth access token for the resource API) acts
  // nowhere else: RFC 9068 §4, a token is only for its audience.
  if (caller.via === 'bearer' && caller.credential.audience !== undefined) throw new InvalidTokenError();
  return caller;
}

/** For token callers, the ability or 403; session callers hold every ability of their user. */
export function requireAbility(request: { caller: Caller | null }, ability: string): Caller {
  const caller = requireCaller(request);
  if (caller.via !== 'session' && !hasAbility(caller.token.abilities, ability)) {
    throw new InsufficientScopeError(ability);
  }
  return caller;
}
