import type { FastifyRequest } from 'fastify';
import { publicUser } from '../../auth/core/users.ts';
import { hasAbility } from '../../auth/core/abilities.ts';
import { AuthenticationRequiredError, InsufficientScopeError } from '../../core/errors.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { Verb } from '../resource/types.ts';

/** The caller as the hooks see it; 401/403 when the verb needs a caller (with the token's ability). */
export function authorize(resource: CompiledResource, verb: Verb, request: FastifyRequest) {
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
    ? { user: publicUser(effective.user), token: effective.token }
    : { user: null, token: null };
}
