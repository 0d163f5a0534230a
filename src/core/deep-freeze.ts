/**
 * Freeze `value` and every object under it, and return it: for values shared between requests
 * (a document served to every caller, a session kept in memory), so that a change to one throws
 * instead of reaching the next request.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
