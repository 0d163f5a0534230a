import type { FastifyRequest } from 'fastify';
import type { Caller } from '../security/caller.ts';

/** The organization a request acts in, with the caller's role there and what that role may do. */
export interface CallOrganization {
  readonly id: number;
  readonly role: string;
  /** Written like token abilities: `projects:read`, `projects:*`, `*`. */
  readonly permissions: readonly string[];
}

/**
 * One request as application code sees it (resource hooks, plugins): who calls, from where, with
 * which headers, in which organization. Plain data, built by Citadel's HTTP adapter, the same under
 * the Fastify plugin, the Node handler and the Fetch handler; never the HTTP framework's request.
 */
export interface CallContext {
  /** The session's user or the bearer token's owner; null for an anonymous caller. */
  readonly caller: Caller | null;
  /** The client's address (after `TRUST_PROXY`). */
  readonly ip: string;
  readonly userAgent: string | null;
  /** The request's headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The active organization (organizations plugin), or null. */
  readonly organization: CallOrganization | null;
}

/** The call context of a Fastify request, for a caller and organization the adapter resolved. */
export function callContextOf(
  request: FastifyRequest,
  caller: Caller | null,
  organization: CallOrganization | null,
): CallContext {
  const agent = request.headers['user-agent'];
  return {
    caller,
    ip: request.ip,
    userAgent: typeof agent === 'string' ? agent : null,
    headers: request.headers,
    organization,
  };
}
