import type { OpenApiSchema } from './json-schema.ts';

/**
 * What every part of a resource API document shares: component references and names, media types,
 * and the per-document context.
 */

export const PROBLEM = 'application/problem+json';
export const JSON_TYPE = 'application/json';

export const ref = (kind: 'schemas' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** `blog-posts` → `BlogPosts`: a component name OpenAPI accepts. */
export function componentName(resourceName: string): string {
  const name = resourceName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return name || 'Resource';
}

/** What every part of one document shares: the schema of an obfuscated id of this deployment. */
export interface DocContext {
  sqid: OpenApiSchema;
}
