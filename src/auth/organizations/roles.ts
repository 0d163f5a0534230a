import { isValidAbility, ConfigError } from '../../plugin-api.ts';

const ROLE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** Role name → its permissions (written like token abilities: `projects:read`, `projects:*`, `*`). */
export type RolePermissions = ReadonlyMap<string, readonly string[]>;

/**
 * The roles of the plugin's options: `member`'s permissions (none unless given) and custom roles.
 * `owner` and `admin` always hold `*` and cannot be redefined.
 */
export function compileRoles(roles: Readonly<Record<string, readonly string[]>> = {}): RolePermissions {
  const compiled = new Map<string, readonly string[]>([
    ['owner', ['*']],
    ['admin', ['*']],
    ['member', []],
  ]);
  for (const [name, permissions] of Object.entries(roles)) {
    if (name === 'owner' || name === 'admin')
      throw new ConfigError(
        `organizations: the role "${name}" holds every permission and cannot be redefined`,
      );
    if (!ROLE_NAME.test(name))
      throw new ConfigError(`organizations: role "${name}" must be lower-case letters, digits, - or _`);
    for (const permission of permissions) {
      if (!isValidAbility(permission))
        throw new ConfigError(
          `organizations: role "${name}" has "${permission}"; write permissions like token abilities ("*", "<resource>:*", "<resource>:read|create|update|delete")`,
        );
    }
    compiled.set(name, [...permissions]);
  }
  return compiled;
}
