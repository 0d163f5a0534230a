/**
 * Abilities: `*`, `<resource>:*`, or `<resource>:<verb>` with verb read, create, update or delete.
 * Token management uses the resource name `tokens`.
 */
const ABILITY_PATTERN = /^(\*|[a-z][a-z0-9_-]{0,62}:(\*|read|create|update|delete))$/;

/** Whether `ability` is written as an ability: `*`, `<resource>:*` or `<resource>:<verb>`. */
export function isValidAbility(ability: string): boolean {
  return ABILITY_PATTERN.test(ability);
}

/** Does a token holding `abilities` have `required` (always of the form `<resource>:<verb>`)? */
export function hasAbility(abilities: readonly string[], required: string): boolean {
  const [resource] = required.split(':');
  return abilities.includes('*') || abilities.includes(`${resource}:*`) || abilities.includes(required);
}

/** Can a token holding `held` mint a token with `wanted`? Only if it holds every one itself. */
export function coversAbilities(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((ability) => {
    if (ability === '*') return held.includes('*');
    if (ability.endsWith(':*')) return held.includes('*') || held.includes(ability);
    return hasAbility(held, ability);
  });
}
