import { type CitadelServices, isValidAbility } from '../../plugin-api.ts';

/** The OpenID Connect scopes the provider knows. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/** The claims each OpenID scope releases (ID token when asked, userinfo). */
export const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  openid: ['sub'],
  profile: ['preferred_username', 'name', 'updated_at'],
  email: ['email', 'email_verified'],
};

/** Every claim the provider can release (metadata `claims_supported`). */
export const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'amr',
  'preferred_username',
  'name',
  'updated_at',
  'email',
  'email_verified',
];

const RESOURCE_VERBS = ['read', 'create', 'update', 'delete'] as const;

/** A resource ability as a scope (`posts:read`, `posts:*`); never `*`. */
export function isResourceScope(scope: string): boolean {
  return scope !== '*' && scope.includes(':') && isValidAbility(scope);
}

/** A scope the provider can grant: an OpenID scope or a resource ability. */
export function isKnownScope(scope: string): boolean {
  return (OIDC_SCOPES as readonly string[]).includes(scope) || isResourceScope(scope);
}

/** The scopes of the metadata: the OpenID ones and each resource's abilities. */
export function supportedScopes(services: CitadelServices): string[] {
  const resources = services.config.api?.resources ?? [];
  return [
    ...OIDC_SCOPES,
    ...resources.flatMap((resource) => RESOURCE_VERBS.map((verb) => `${resource.name}:${verb}`)),
  ];
}

/** A space-separated scope parameter as a list, each once, in order; null when malformed. */
export function parseScope(value: string | undefined): string[] | null {
  if (value === undefined) return [];
  if (value.length > 4000 || !/^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(value.trim()))
    return value.trim() === '' ? [] : null;
  return [...new Set(value.trim().split(' '))];
}

/** Whether every scope of `wanted` is in `held`. */
export function coversScopes(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((scope) => held.includes(scope));
}
