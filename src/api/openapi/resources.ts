import type { ApiConfig, ColumnConfig, ResourceConfig, Verb, WriteVerb } from '../types.ts';
import type { TObject } from '@sinclair/typebox';

/** Everything the document needs to know about a resource, with the contract's defaults applied. */
export const ALL_VERBS: readonly Verb[] = ['get', 'post', 'put', 'patch', 'delete'];
const ABILITY: Record<Verb, string> = {
  get: 'read',
  post: 'create',
  put: 'update',
  patch: 'update',
  delete: 'delete',
};

export function publishedIn(resource: ResourceConfig, version: string): boolean {
  if (resource.version === undefined) return true;
  return Array.isArray(resource.version) ? resource.version.includes(version) : resource.version === version;
}

export function resourcesOf(api: ApiConfig, version: string): ResourceConfig[] {
  return api.resources.filter((resource) => publishedIn(resource, version));
}

export function primaryKeyOf(resource: ResourceConfig): string {
  return resource.primaryKey ?? 'id';
}

export function isObfuscated(resource: ResourceConfig, field: string): boolean {
  return resource.obfuscatedFields?.includes(field) ?? false;
}

/** The validator of a write verb (`*` covers every write verb without its own). */
export function validatorOf(resource: ResourceConfig, verb: WriteVerb): TObject | undefined {
  return resource.formClass?.[verb] ?? resource.formClass?.['*'];
}

/** Verbs the engine serves: exposed, and for writes bound to a validator (else 405). */
export function servedVerbs(resource: ResourceConfig): Set<Verb> {
  const exposed = resource.exposedMethods ?? ALL_VERBS;
  const served = new Set<Verb>();
  for (const verb of exposed) {
    if (verb === 'post' || verb === 'put' || verb === 'patch') {
      if (validatorOf(resource, verb)) served.add(verb);
    } else served.add(verb);
  }
  return served;
}

export function requiresAuth(resource: ResourceConfig, verb: Verb): boolean {
  return resource.requiredAuth?.includes(verb) ?? false;
}

export function abilityFor(resource: ResourceConfig, verb: Verb): string {
  return `${resource.name}:${ABILITY[verb]}`;
}

export function visibleColumns(resource: ResourceConfig): [string, ColumnConfig][] {
  return Object.entries(resource.columns).filter(([, column]) => !column.hidden);
}

export function sortableOf(resource: ResourceConfig): string[] {
  return resource.sortable ?? visibleColumns(resource).map(([name]) => name);
}

export function searchableOf(resource: ResourceConfig): string[] {
  return (
    resource.searchable ??
    visibleColumns(resource)
      .filter(([, column]) => column.type === 'string' || column.type === 'text')
      .map(([name]) => name)
  );
}

/** `blog-posts` → `BlogPosts`: a component name OpenAPI accepts. */
export function componentName(resourceName: string): string {
  const name = resourceName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return name || 'Resource';
}
