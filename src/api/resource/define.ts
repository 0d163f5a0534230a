import { ConfigError } from '../../core/errors.ts';
import { parseOpenApiVersion, type OpenApiVersion } from '../../core/openapi.ts';
import type { ApiConfig, LiveOptions, PublishOptions, ResourceConfig, Verb } from './types.ts';

/** Every verb of the resource API, in document order. */
export const VERBS: readonly Verb[] = ['get', 'post', 'put', 'patch', 'delete'];
/** Records per page when a resource declares no `defaultLimit` / `maxLimit`. */
export const DEFAULT_LIMIT = 20;
export const DEFAULT_MAX_LIMIT = 100;
/** Query parameters of a list read besides the filters (a filterable column may not take these names). */
export const LIST_PARAMETERS: readonly string[] = [
  'page',
  'limit',
  'sort',
  'search',
  'derive',
  'filter',
  'fields',
  'count',
  'cursor',
];
const LIVE_OPTIONS: readonly string[] = [
  'retentionSeconds',
  'heartbeatSeconds',
  'maxStreamsPerUser',
  'maxStreamsPerProcess',
  'bufferBytes',
];
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/;

function fail(resource: string, message: string): never {
  throw new ConfigError(`resource "${resource}": ${message}`);
}

function checkColumnList(
  resource: ResourceConfig,
  option: string,
  names: readonly string[] | undefined,
): void {
  for (const name of names ?? []) {
    if (!(name in resource.columns)) {
      fail(
        resource.name,
        `${option} names "${name}", which is not a column (columns: ${Object.keys(resource.columns).join(', ')})`,
      );
    }
  }
}

/**
 * Check one resource on its own: names, columns and options that refer to columns or relations.
 * Cross-resource references (relation targets) are checked by `validateApi`.
 */
export function defineResource<const T extends ResourceConfig>(resource: T): T {
  const name = resource.name;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ConfigError(`resource name "${String(name)}" must be lower-case letters, digits, - or _`);
  }
  if (!resource.columns || Object.keys(resource.columns).length === 0) fail(name, 'declares no columns');
  for (const column of Object.keys(resource.columns)) {
    if (!IDENTIFIER.test(column)) fail(name, `column "${column}" is not a plain SQL identifier`);
  }
  for (const [key, label] of Object.entries(resource.labels ?? {})) {
    if (key !== 'singular' && key !== 'plural')
      fail(name, `labels.${key} is not an option (singular, plural)`);
    // Labels land in the docs page's text: one short line, no markup.
    if (typeof label !== 'string' || !/^[^\p{Cc}<>]{1,60}$/u.test(label) || label.trim() !== label)
      fail(name, `labels.${key} must be 1 to 60 characters, without control characters, < or >`);
  }
  if (resource.table !== undefined && !IDENTIFIER.test(resource.table)) {
    fail(name, `table "${resource.table}" is not a plain SQL identifier`);
  }
  const primaryKey = resource.primaryKey ?? 'id';
  if (!(primaryKey in resource.columns)) fail(name, `primary key "${primaryKey}" is not a column`);
  checkColumnList(resource, 'obfuscatedFields', resource.obfuscatedFields);
  checkColumnList(resource, 'sortable', resource.sortable);
  checkColumnList(resource, 'searchable', resource.searchable);
  checkColumnList(resource, 'filterable', resource.filterable);
  for (const [field, computed] of Object.entries(resource.computedFields ?? {}))
    checkColumnList(resource, `computedFields.${field}.from`, computed.from);
  for (const column of resource.filterable ?? []) {
    if (resource.columns[column]!.type === 'json')
      fail(name, `filterable column "${column}" is json, which filters cannot compare`);
  }
  // A hidden column must not be inferable from an order, a match or a filter.
  for (const option of ['sortable', 'searchable', 'filterable'] as const) {
    for (const column of resource[option] ?? []) {
      if (resource.columns[column]!.hidden) fail(name, `${option} names "${column}", which is hidden`);
    }
  }
  for (const column of resource.filterable ?? []) {
    if (LIST_PARAMETERS.includes(column))
      fail(name, `filterable column "${column}" clashes with a query parameter`);
  }
  for (const field of resource.obfuscatedFields ?? []) {
    if (resource.columns[field]!.type !== 'integer')
      fail(name, `obfuscated field "${field}" must be an integer column`);
  }
  if (resource.tenant !== undefined) {
    const column = resource.columns[resource.tenant];
    if (!column) fail(name, `tenant "${resource.tenant}" is not a column`);
    if (column.type !== 'integer') fail(name, `tenant column "${resource.tenant}" must be an integer column`);
    if (resource.tenant === primaryKey) fail(name, 'the tenant column cannot be the primary key');
    if (column.hidden || column.nullable || column.timestamp)
      fail(name, `tenant column "${resource.tenant}" cannot be hidden, nullable or a timestamp`);
    if ((resource.obfuscatedFields ?? []).includes(resource.tenant))
      fail(name, `tenant column "${resource.tenant}" cannot be obfuscated`);
    for (const [verb, schema] of Object.entries(resource.formClass ?? {})) {
      if (schema && resource.tenant in (schema.properties ?? {}))
        fail(name, `formClass.${verb} accepts the tenant column "${resource.tenant}", which the engine sets`);
    }
  }
  if (resource.live !== undefined && typeof resource.live !== 'boolean')
    fail(name, 'live must be true or false');
  if (resource.live && !(resource.exposedMethods ?? VERBS).includes('get'))
    fail(name, 'live needs the list read: exposedMethods must include get');
  for (const option of ['requiredAuth', 'exposedMethods'] as const) {
    for (const verb of resource[option] ?? []) {
      if (!VERBS.includes(verb)) fail(name, `${option} has "${verb}"; verbs are ${VERBS.join(', ')}`);
    }
  }
  for (const verb of Object.keys(resource.formClass ?? {})) {
    if (!['post', 'put', 'patch', '*'].includes(verb))
      fail(name, `formClass has "${verb}"; use post, put, patch or *`);
  }
  for (const option of ['maxLimit', 'defaultLimit', 'maxDeriveDepth'] as const) {
    const value = resource[option];
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      fail(name, `${option} must be a positive integer`);
  }
  if (
    (resource.defaultLimit ?? DEFAULT_LIMIT) > (resource.maxLimit ?? DEFAULT_MAX_LIMIT) &&
    resource.defaultLimit !== undefined
  ) {
    fail(name, 'defaultLimit is larger than maxLimit');
  }
  const relations = resource.relations ?? {};
  for (const relationName of resource.allowedRelations ?? []) {
    if (!(relationName in relations)) {
      const known = Object.keys(relations);
      fail(
        name,
        `allowedRelations names "${relationName}", which is not a relation (relations: ${known.join(', ') || 'none'})`,
      );
    }
  }
  for (const [relationName, relation] of Object.entries(relations)) {
    if (relationName in resource.columns) fail(name, `relation "${relationName}" has the name of a column`);
    if (relation.type !== 'hasMany' && relation.type !== 'belongsTo') {
      fail(name, `relation "${relationName}" has type "${String(relation.type)}"; use hasMany or belongsTo`);
    }
    if (!relation.resource === !relation.table)
      fail(name, `relation "${relationName}" needs exactly one of resource or table`);
    if (relation.table !== undefined && !IDENTIFIER.test(relation.table))
      fail(name, `relation "${relationName}" table is not an identifier`);
    if (!IDENTIFIER.test(relation.foreignKey))
      fail(name, `relation "${relationName}" foreignKey is not an identifier`);
    if (relation.type === 'belongsTo' && !(relation.foreignKey in resource.columns)) {
      fail(name, `relation "${relationName}" foreign key "${relation.foreignKey}" is not a column`);
    }
    if (relation.table !== undefined) {
      if (!relation.columns?.length)
        fail(name, `relation "${relationName}" on table "${relation.table}" must list its columns`);
      for (const column of relation.columns) {
        if (!IDENTIFIER.test(column))
          fail(name, `relation "${relationName}" column "${column}" is not an identifier`);
      }
      for (const field of Object.keys(relation.columnTypes ?? {})) {
        if (!relation.columns.includes(field))
          fail(name, `relation "${relationName}" types "${field}", which it does not list in columns`);
      }
      for (const field of relation.obfuscatedFields ?? []) {
        if (!relation.columns.includes(field))
          fail(name, `relation "${relationName}" obfuscates "${field}", which it does not list in columns`);
      }
      if (relation.type === 'hasMany')
        fail(name, `relation "${relationName}": hasMany needs a resource, not a table`);
    }
  }
  if (resource.version !== undefined) {
    for (const version of [resource.version].flat()) {
      if (!VERSION.test(version)) fail(name, `version "${version}" is not a plain path segment`);
    }
  }
  return resource;
}

/** Cross-resource checks: unique names, relation targets that exist and keys that are columns. */
export function validateApi(api: ApiConfig): void {
  const byName = new Map<string, ResourceConfig>();
  for (const resource of api.resources) {
    defineResource(resource);
    if (byName.has(resource.name)) throw new ConfigError(`two resources are named "${resource.name}"`);
    byName.set(resource.name, resource);
  }
  for (const resource of api.resources) {
    for (const [relationName, relation] of Object.entries(resource.relations ?? {})) {
      if (!relation.resource) continue;
      const target = byName.get(relation.resource);
      if (!target)
        fail(resource.name, `relation "${relationName}" targets unknown resource "${relation.resource}"`);
      if (relation.type === 'hasMany' && !(relation.foreignKey in target.columns)) {
        fail(
          resource.name,
          `relation "${relationName}" foreign key "${relation.foreignKey}" is not a column of "${target.name}"`,
        );
      }
      if (relation.targetKey !== undefined && !(relation.targetKey in target.columns)) {
        fail(
          resource.name,
          `relation "${relationName}" target key "${relation.targetKey}" is not a column of "${target.name}"`,
        );
      }
    }
  }
  if (api.openapi !== undefined) parseOpenApiVersion(api.openapi, 'api.openapi');
  for (const [option, value] of Object.entries(api.live ?? {})) {
    if (!LIVE_OPTIONS.includes(option))
      throw new ConfigError(`live.${option} is not an option (${LIVE_OPTIONS.join(', ')})`);
    if (!Number.isInteger(value) || (value as number) < 1)
      throw new ConfigError(`live.${option} must be a positive integer`);
  }
  if (!api.apiBaseUrl.startsWith('/') || !/^(\/[A-Za-z0-9._-]+)+$/.test(api.apiBaseUrl)) {
    throw new ConfigError(`apiBaseUrl "${api.apiBaseUrl}" must be a path such as /api`);
  }
  const versions = new Set<string>();
  for (const publication of api.publications) {
    if (!VERSION.test(publication.version))
      throw new ConfigError(`published version "${publication.version}" is not a plain path segment`);
    if (versions.has(publication.version))
      throw new ConfigError(`version "${publication.version}" is published twice`);
    versions.add(publication.version);
  }
}

/**
 * The API-level configuration plus a chainable `publish()`: `createApi(...).publish(v1).publish(v2)`.
 * Its type parameters keep the resources, the published versions and the base path literal for the
 * typed client (`citadel/client`).
 */
export interface ApiBuilder<
  R extends readonly ResourceConfig[] = ResourceConfig[],
  V extends string = string,
  Base extends string = string,
> extends ApiConfig {
  /** The resources, with their declared types. */
  resources: [...R];
  /** The base path (default `/api`). */
  apiBaseUrl: Base;
  publish<const W extends string>(options: PublishOptions & { version: W }): ApiBuilder<R, V | W, Base>;
}

function builder(config: ApiConfig): ApiBuilder {
  return {
    ...config,
    publish(options: PublishOptions): ApiBuilder {
      const publication: PublishOptions = {
        version: options.version,
        docs: { route: options.docs?.route ?? 'docs', uiRoute: options.docs?.uiRoute ?? 'docs/ui' },
      };
      const next: ApiConfig = { ...config, publications: [...config.publications, publication] };
      validateApi(next);
      return builder(next);
    },
  };
}

export function createApi<
  const R extends readonly ResourceConfig[],
  const Base extends string = '/api',
>(options: {
  apiName: string;
  apiBaseUrl?: Base;
  resources: R;
  /** OpenAPI version of the documents: `3.0` (3.0.3, the default) or `3.1` (3.1.0). */
  openapi?: OpenApiVersion;
  /** Limits and timings of live streams (resources with `live: true`). */
  live?: LiveOptions;
}): ApiBuilder<R, never, Base> {
  const config: ApiConfig = {
    apiName: options.apiName,
    apiBaseUrl: (options.apiBaseUrl ?? '/api').replace(/\/+$/, '') || '/api',
    resources: [...options.resources],
    publications: [],
    ...(options.openapi === undefined ? {} : { openapi: parseOpenApiVersion(options.openapi, 'openapi') }),
    ...(options.live === undefined ? {} : { live: { ...options.live } }),
  };
  validateApi(config);
  return builder(config) as unknown as ApiBuilder<R, never, Base>;
}
