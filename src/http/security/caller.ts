import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.ts';

/** A row of the users table. */
export type UserRecord = Selectable<UsersTable>;

/** The user as every response shows it: never the password hash. */
export interface PublicUser {
  id: number;
  username: string;
  email: string;
  active: boolean;
}

/** What of a user row answers and pages may show: no password hash, no secrets. */
export function publicUser(user: UserRecord): PublicUser {
  return { id: user.id, username: user.username, email: user.email, active: user.active === 1 };
}

/** A personal access token as listed to its owner: never the hash, never the plain token. */
export interface TokenRecord {
  id: number;
  name: string;
  abilities: string[];
  last_used_at: string | null;
  created_at: string;
  expires_at: string | null;
  /** The organization the token acts in (organizations plugin), or null. */
  organization_id: number | null;
}

/**
 * Who is calling: a signed-in browser session or a bearer token's owner. The shape lives here so
 * pages and the error handler can read it; resolving it is the auth core's job.
 */
export type Caller =
  | {
      via: 'session';
      user: UserRecord;
      token: null;
      /** An administrator acting as this user (impersonation). */
      impersonator?: { id: number; username: string };
    }
  | { via: 'token'; user: UserRecord; token: TokenRecord }
  | {
      /**
       * A bearer credential verified by a plugin (`CitadelPlugin.bearer`, a service token): `token`
       * carries its abilities (`id` 0: it is not a stored token), `credential` what the plugin
       * tells about it.
       */
      via: 'bearer';
      user: UserRecord;
      token: TokenRecord;
      credential: {
        kind: string;
        id: string;
        expiresAt: string;
        /**
         * Where the credential may be used, when it was made for one resource only (an OAuth
         * access token, by its `aud`): `api`, the resource API alone; `issuer`, the endpoints of
         * the plugin that issued it, which read it themselves (OAuth userinfo). Absent: anywhere.
         */
        audience?: 'api' | 'issuer';
      };
    };

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user (session) or the owner of the bearer token; null for anonymous callers. */
    caller: Caller | null;
  }
}
