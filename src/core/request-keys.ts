import { HttpError } from './errors.ts';

/**
 * Request data never reaches a prototype. These key names, anywhere a key
 * comes from a request (a query parameter, a bracket segment `a[b]`, a JSON filter, a JSON, form
 * or multipart body, a nested write), are refused before any code copies the data into objects.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** What a client is told about such a key (one wording for both error shapes). */
export const FORBIDDEN_KEY_REASON = 'uses a reserved name (__proto__, constructor and prototype are refused)';

/**
 * 400 on the resource API (problem details naming the parameter); the auth error handler answers
 * it as 422 with `errors.<field>`, the auth endpoints' shape for a field it cannot accept.
 */
export class ForbiddenKeyError extends HttpError {
  override name = 'ForbiddenKeyError';
  readonly field: string;
  constructor(field: string) {
    super(400, `The request parameter "${field}" ${FORBIDDEN_KEY_REASON}.`, {
      invalidParams: [{ name: field, reason: FORBIDDEN_KEY_REASON }],
      errors: { [field]: FORBIDDEN_KEY_REASON },
    });
    this.field = field;
  }
}

/** `filter[or][0][x]` → ['filter', 'or', '0', 'x']; a name without brackets is one segment. */
export function parameterSegments(name: string): string[] {
  const open = name.indexOf('[');
  if (open === -1) return [name];
  const segments = [name.slice(0, open)];
  for (const match of name.slice(open).matchAll(/\[([^[\]]*)\]?/g)) segments.push(match[1]!);
  return segments;
}

/** Whether a parameter name holds a forbidden key as itself or as any bracket segment. */
export function nameHasForbiddenKey(name: string): boolean {
  return parameterSegments(name).some(isForbiddenKey);
}

/**
 * The path (`items[0].__proto__`) of the first forbidden key in a parsed value, walking own keys
 * only, with an explicit stack (no recursion, so any depth is safe), or null when there is none.
 */
export function findForbiddenKey(value: unknown, root: string): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: root }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push({ value: item, path: `${path}[${index}]` }));
      continue;
    }
    if (ArrayBuffer.isView(current)) continue;
    for (const key of Object.keys(current)) {
      const keyPath = path === '' ? key : `${path}.${key}`;
      // A form or multipart key is a bracket path (`a[constructor][prototype]`): each segment counts.
      if (nameHasForbiddenKey(key)) return keyPath;
      stack.push({ value: (current as Record<string, unknown>)[key], path: keyPath });
    }
  }
  return null;
}

/** A fresh object with no prototype: keys from a request become its own properties and nothing else. */
export function emptyRecord<T = unknown>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
