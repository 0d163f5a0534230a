import type { FastifyRequest } from 'fastify';
import { publicUser } from '../../auth/core/users.ts';
import { hasAbility } from '../../auth/core/abilities.ts';
import { resolvedTenant } from '../../auth/core/tenancy.ts';
import { AuthenticationRequiredError, ForbiddenError, InsufficientScopeError } from '../../core/errors.ts';
import { InvalidTokenError } from '../../auth/core/caller.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { Verb } from '../resource/types.ts';

/** 403 for a tenant-scoped resource when the caller's role lacks the permission. */
export class MissingPermissionError extends ForbiddenError {
  override name = 'MissingPermissionError';
  constructor(permission: string, role: string) {
    super(`Your role "${role}" in the active organization lacks the permission "${permission}".`);
  }
}

/** 403 for a tenant-scoped resource without an active organization. */
export class NoActiveOrganizationError extends ForbiddenError {
  override name = 'NoActiveOrganizationError';
  constructor() {
    super(
      'No active organization: choose one with POST /organizations/active (or use a token made for one).',
    );
  }
}

/**
 * A tenant-scoped resource: a caller, an active organization, the verb's
 * permission in the caller's role, and in the token's abilities when a token is used (both).
 * The active organization must have been resolved for the request (`activeTenant`) before.
 */
function authorizeTenant(resource: CompiledResource, verb: Verb, request: FastifyRequest) {
  const caller = request.caller;
  if (!caller)
    throw new AuthenticationRequiredError(
      'Authentication required: send a bearer token or a session cookie.',
    );
  const tenant = resolvedTenant(request);
  if (!tenant) throw new NoActiveOrganizationError();
  const permission = resource.abilities[verb];
  if (caller.via === 'token' && !hasAbility(caller.token.abilities, permission))
    throw new InsufficientScopeError(permission);
  if (!hasAbility(tenant.permissions, permission)) throw new MissingPermissionError(permission, tenant.role);
  return { user: publicUser(caller.user), token: caller.token, caller };
}

/** The caller as the hooks see it; 401/403 when the verb needs a caller (with the token's ability). */
export function authorize(resource: CompiledResource, verb: Verb, request: FastifyRequest) {
  // A bearer credential made for another audience (an OAuth token for the issuer's userinfo).
  const bound = request.caller?.via === 'bearer' ? request.caller.credential.audience : undefined;
  if (bound !== undefined && bound !== 'api') throw new InvalidTokenError();
  if (resource.tenant !== null) return authorizeTenant(resource, verb, request);
  const caller = request.caller;
  const ability = resource.abilities[verb];
  // A token without the ability acts as an anonymous caller where no caller is required.
  const effective =
    caller && (caller.via === 'session' || hasAbility(caller.token.abilities, ability)) ? caller : null;
  if (resource.requiredAuth.has(verb)) {
    if (!caller)
      throw new AuthenticationRequiredError(
        'Authentication required: send a bearer token or a session cookie.',
      );
    if (!effective) throw new InsufficientScopeError(ability);
  }
  return effective
    ? { user: publicUser(effective.user), token: effective.token, caller: effective }
    : { user: null, token: null, caller: null };
}
