import { IMPERSONATION_FORBIDDEN_ACTION } from '../../core/errors.ts';

/**
 * The `action`s the core's own answers carry beside the endpoints' (an error or a next step any
 * endpoint may answer with). Plugins declare theirs in `errorCodes`; the typed client exports the
 * union with every endpoint's `action`.
 */
export const CORE_ERROR_CODES = [
  // Sudo is required or was refused (every `auth: 'sudo'` endpoint).
  'sudo.required',
  'sudo.refused',
  // A sign-in of a disabled account; a sign-in that continues with a pipeline action.
  'login.disabled',
  'login.action_required',
  // A change refused while an administrator acts as the user.
  IMPERSONATION_FORBIDDEN_ACTION,
  // An `auth: 'admin'` endpoint called by someone who is not an administrator (or is acting as
  // another user), whichever plugin declares the endpoint.
  'admin.forbidden',
] as const;

export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/** The resource API's problem `type`s: every problem is `about:blank`, its status says the rest. */
export const PROBLEM_TYPES = ['about:blank'] as const;

export type ProblemType = (typeof PROBLEM_TYPES)[number];
