import type { TObject } from '@sinclair/typebox';
import type { AliasedRawBuilder } from 'kysely';
import { ConfigError } from '../../core/errors.ts';
import type { Dialect } from '../../db/url.ts';
import { readExpression } from './column-types.ts';
import { DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, LIST_PARAMETERS, validateApi, VERBS } from './define.ts';
import { PayloadValidator } from './validation.ts';
import type {
  ApiConfig,
  ColumnType,
  RelationConfig,
  ResourceConfig,
  ResourceHooks,
  Verb,
  WriteVerb,
} from './types.ts';

/** How a stored value becomes a JSON value: an obfuscated id, as it is, or by its column type. */
export type OutputKind = 'plain' | 'id' | ColumnType;

export interface OutputField {
  key: string;
  kind: OutputKind;
  /** For an obfuscated id: its id space (the table the id belongs to), which picks the alphabet. */
  space?: string;
}

export interface SortTerm {
  column: string;
  desc: boolean;
}

/** The other side of a relation: a resource, or a plain table showing some columns. */
export interface RelationTarget {
  table: string;
  resource: CompiledResource | null;
  /** Qualified select list (`table.column`), including every key the loader needs. */
  select: Selection;
  /** The same columns unqualified, for queries with a single table (shorter SQL to parse). */
  plainSelect: Selection;
  output: OutputField[];
}

export interface CompiledRelation {
  config: RelationConfig;
  name: string;
  type: 'hasMany' | 'belongsTo';
  /** hasMany: the column of the child pointing at us; belongsTo: our column pointing at the target. */
  foreignKey: string;
  /** hasMany: our primary key; belongsTo: the target's key. */
  targetKey: string;
  /** Filled after every resource is compiled (relations may point at each other). */
  target: RelationTarget;
  resourceName?: string;
  /** For nested creates under this hasMany relation: the child's post validator without the foreign key. */
  nestedValidator: PayloadValidator | null;
}

/** Everything a request needs about a resource, computed once at start-up. */
export interface CompiledResource {
  config: ResourceConfig;
  name: string;
  table: string;
  primaryKey: string;
  columns: ReadonlySet<string>;
  columnTypes: ReadonlyMap<string, ColumnType>;
  /** Qualified select list of every column, built once (Kysely parses nothing per request). */
  select: Selection;
  /** The same columns unqualified, for queries with a single table (shorter SQL to parse). */
  plainSelect: Selection;
  output: OutputField[];
  obfuscated: ReadonlySet<string>;
  /** Id space of each obfuscated column: the primary key's is the table, a foreign key's its target's. */
  idSpaces: ReadonlyMap<string, string>;
  pkObfuscated: boolean;
  sortable: ReadonlySet<string>;
  searchable: readonly string[];
  filterable: ReadonlySet<string>;
  /** Query parameters a list read accepts: the fixed ones plus the filterable columns. */
  listParameters: ReadonlySet<string>;
  maxLimit: number;
  defaultLimit: number;
  defaultSort: SortTerm[];
  requiredAuth: ReadonlySet<Verb>;
  exposed: ReadonlySet<Verb>;
  /** Verbs with a route that does more than 405: exposed, and for writes bound to a validator. */
  served: ReadonlySet<Verb>;
  validators: Partial<Record<WriteVerb, PayloadValidator>>;
  /** Relation names a client may derive and write nested. */
  allowed: readonly string[];
  relations: ReadonlyMap<string, CompiledRelation>;
  /** Allowed hasMany relations with a resource target that accepts creates (nested writes). */
  nestedWritable: ReadonlySet<string>;
  /** Columns a save may set after the hooks ran (not the primary key, not the engine's timestamps). */
  writable: ReadonlySet<string>;
  createdStamps: readonly string[];
  updatedStamps: readonly string[];
  hooks: ResourceHooks;
  abilities: Record<Verb, string>;
  /** The tenant column, or null for a resource shared by everyone. */
  tenant: string | null;
}

/**
 * `table.column` for each column: immutable Kysely expressions built once and reused by every query
 * (qualified, so a hook's join cannot make them ambiguous; every driver names the result `column`).
 */
export type Selection = AliasedRawBuilder<unknown, string>[];

function selection(
  dialect: Dialect,
  table: string | null,
  columns: readonly string[],
  types: ReadonlyMap<string, ColumnType> = new Map(),
): Selection {
  // Without an alias the SQL stays short (the database parses every statement it is given).
  return columns.map((column) => readExpression(dialect, table, column, types.get(column)));
}

const TEXT_TYPES: ReadonlySet<ColumnType> = new Set(['string', 'text']);

function outputKind(type: ColumnType, obfuscated: boolean): OutputKind {
  return obfuscated ? 'id' : type;
}

/** `-created_at,title` → terms; a string is the reason it is malformed. */
export function parseSort(text: string): SortTerm[] | string {
  const terms: SortTerm[] = [];
  for (const part of text.split(',')) {
    const field = part.replace(/^-/, '');
    if (!field) return 'has an empty field';
    terms.push({ column: field, desc: part.startsWith('-') });
  }
  return terms;
}

/**
 * The id space of each obfuscated column: the table its ids belong to. The primary key's is the
 * resource's table; a foreign key declared by a belongsTo relation takes its target's table; any
 * other column is a space of its own.
 */
function idSpacesOf(
  config: ResourceConfig,
  table: string,
  tables: ReadonlyMap<string, string>,
): Map<string, string> {
  const primaryKey = config.primaryKey ?? 'id';
  const spaces = new Map<string, string>();
  for (const key of config.obfuscatedFields ?? []) {
    let space = key === primaryKey ? table : `${table}.${key}`;
    for (const relation of Object.values(config.relations ?? {})) {
      if (relation.type !== 'belongsTo' || relation.foreignKey !== key) continue;
      const target = relation.resource ? tables.get(relation.resource) : relation.table;
      if (target) space = target;
    }
    spaces.set(key, space);
  }
  return spaces;
}

function compileOne(
  config: ResourceConfig,
  dialect: Dialect,
  tables: ReadonlyMap<string, string>,
): CompiledResource {
  const name = config.name;
  const table = config.table ?? name;
  const primaryKey = config.primaryKey ?? 'id';
  const obfuscated = new Set(config.obfuscatedFields ?? []);
  const idSpaces = idSpacesOf(config, table, tables);
  const columnEntries = Object.entries(config.columns);
  const output = columnEntries
    .filter(([, column]) => !column.hidden)
    .map(([key, column]) => ({
      key,
      kind: outputKind(column.type, obfuscated.has(key)),
      ...(obfuscated.has(key) ? { space: idSpaces.get(key)! } : {}),
    }));
  // Hidden columns are never sortable: the order would reveal their values.
  const sortable = new Set(config.sortable ?? output.map((field) => field.key));
  const defaultSort = config.defaultSort
    ? parseSort(config.defaultSort)
    : [{ column: primaryKey, desc: false }];
  if (typeof defaultSort === 'string' || defaultSort.some((term) => !(term.column in config.columns))) {
    throw new ConfigError(`resource "${name}": defaultSort "${config.defaultSort}" must name columns`);
  }

  const columnTypes = new Map(columnEntries.map(([key, column]) => [key, column.type]));
  const validators: Partial<Record<WriteVerb, PayloadValidator>> = {};
  const hasManyNames = Object.entries(config.relations ?? {})
    .filter(
      ([relationName, relation]) =>
        relation.type === 'hasMany' && (config.allowedRelations ?? []).includes(relationName),
    )
    .map(([relationName]) => relationName);
  for (const verb of ['post', 'put', 'patch'] as const) {
    const schema: TObject | undefined = config.formClass?.[verb] ?? config.formClass?.['*'];
    if (!schema) continue;
    if (schema.type !== 'object' || typeof schema.properties !== 'object') {
      throw new ConfigError(`resource "${name}": formClass.${verb} must be a TypeBox object schema`);
    }
    for (const property of Object.keys(schema.properties)) {
      const column = config.columns[property];
      if (property === primaryKey || column?.readOnly || column?.timestamp) {
        throw new ConfigError(
          `resource "${name}": formClass.${verb} accepts "${property}", which clients may not set`,
        );
      }
    }
    // Nested children are validated by their own resource's validator, not the parent's.
    validators[verb] = new PayloadValidator(schema, hasManyNames);
  }

  const exposed = new Set(config.exposedMethods ?? VERBS);
  // Validators keep read-only columns out of payloads; hooks may still set them (an owner id).
  // The engine alone sets the timestamps and never writes the primary key.
  const writable = new Set(
    columnEntries.filter(([key, column]) => key !== primaryKey && !column.timestamp).map(([key]) => key),
  );

  return {
    config,
    name,
    table,
    primaryKey,
    columns: new Set(Object.keys(config.columns)),
    columnTypes,
    select: selection(dialect, table, Object.keys(config.columns), columnTypes),
    plainSelect: selection(dialect, null, Object.keys(config.columns), columnTypes),
    output,
    obfuscated,
    idSpaces,
    pkObfuscated: obfuscated.has(primaryKey),
    sortable,
    searchable:
      config.searchable ??
      columnEntries.filter(([, column]) => TEXT_TYPES.has(column.type) && !column.hidden).map(([key]) => key),
    filterable: new Set(config.filterable ?? []),
    listParameters: new Set([...LIST_PARAMETERS, ...(config.filterable ?? [])]),
    maxLimit: config.maxLimit ?? DEFAULT_MAX_LIMIT,
    defaultLimit: Math.min(config.defaultLimit ?? DEFAULT_LIMIT, config.maxLimit ?? DEFAULT_MAX_LIMIT),
    defaultSort,
    requiredAuth: new Set(config.requiredAuth ?? []),
    exposed,
    served: new Set(
      [...exposed].filter((verb) => verb === 'get' || verb === 'delete' || validators[verb] !== undefined),
    ),
    validators,
    allowed: config.allowedRelations ?? [],
    relations: new Map(),
    nestedWritable: new Set(),
    writable,
    createdStamps: columnEntries
      .filter(([, c]) => c.timestamp === 'created' || c.timestamp === 'updated')
      .map(([k]) => k),
    updatedStamps: columnEntries.filter(([, c]) => c.timestamp === 'updated').map(([k]) => k),
    hooks: config.hooks ?? {},
    tenant: config.tenant ?? null,
    abilities: {
      get: `${name}:read`,
      post: `${name}:create`,
      put: `${name}:update`,
      patch: `${name}:update`,
      delete: `${name}:delete`,
    },
  };
}

/**
 * Validate the whole API configuration and precompute every resource, once per configuration and
 * dialect: nothing about the configuration is derived again per request.
 */
export function compileApi(api: ApiConfig, dialect: Dialect): Map<string, CompiledResource> {
  let perDialect = compiledApis.get(api);
  if (!perDialect) compiledApis.set(api, (perDialect = new Map()));
  let compiled = perDialect.get(dialect);
  if (!compiled) perDialect.set(dialect, (compiled = compileAll(api, dialect)));
  return compiled;
}

/** Whether a resource is published in a version (absent `version`: every version). */
export function publishedIn(resource: ResourceConfig, version: string): boolean {
  return resource.version === undefined || [resource.version].flat().includes(version);
}

// The engine and the OpenAPI document read the same compiled resources.
const compiledApis = new WeakMap<ApiConfig, Map<Dialect, Map<string, CompiledResource>>>();

function compileAll(api: ApiConfig, dialect: Dialect): Map<string, CompiledResource> {
  validateApi(api);
  const tables = new Map(api.resources.map((resource) => [resource.name, resource.table ?? resource.name]));
  const compiled = new Map(
    api.resources.map((resource) => [resource.name, compileOne(resource, dialect, tables)]),
  );
  for (const resource of compiled.values()) {
    const relations = new Map<string, CompiledRelation>();
    const nestedWritable = new Set<string>();
    for (const [relationName, relation] of Object.entries(resource.config.relations ?? {})) {
      const targetResource = relation.resource ? compiled.get(relation.resource)! : null;
      let target: RelationTarget;
      let targetKey: string;
      if (targetResource) {
        targetKey =
          relation.type === 'hasMany'
            ? resource.primaryKey
            : (relation.targetKey ?? targetResource.primaryKey);
        target = {
          table: targetResource.table,
          resource: targetResource,
          select: targetResource.select,
          plainSelect: targetResource.plainSelect,
          output: targetResource.output,
        };
      } else {
        const table = relation.table!;
        targetKey = relation.targetKey ?? 'id';
        const columns = relation.columns!;
        const obfuscated = new Set(relation.obfuscatedFields ?? []);
        const types = new Map(Object.entries(relation.columnTypes ?? {}));
        target = {
          table,
          resource: null,
          select: selection(dialect, table, [...new Set([...columns, targetKey])], types),
          plainSelect: selection(dialect, null, [...new Set([...columns, targetKey])], types),
          output: columns.map((key) => ({
            key,
            kind: obfuscated.has(key) ? 'id' : (types.get(key) ?? 'plain'),
            // The target's own key is an id of its table; another column a space of its own.
            ...(obfuscated.has(key) ? { space: key === targetKey ? table : `${table}.${key}` } : {}),
          })),
        };
      }
      let nestedValidator: PayloadValidator | null = null;
      if (relation.type === 'hasMany' && targetResource && resource.allowed.includes(relationName)) {
        const schema = targetResource.config.formClass?.post ?? targetResource.config.formClass?.['*'];
        if (schema && targetResource.exposed.has('post')) {
          const childNested = Object.entries(targetResource.config.relations ?? {})
            .filter(([n, r]) => r.type === 'hasMany' && targetResource.allowed.includes(n))
            .map(([n]) => n);
          nestedValidator = new PayloadValidator(schema, [relation.foreignKey, ...childNested]);
          nestedWritable.add(relationName);
        }
      }
      relations.set(relationName, {
        config: relation,
        name: relationName,
        type: relation.type,
        foreignKey: relation.foreignKey,
        targetKey,
        target,
        resourceName: relation.resource,
        nestedValidator,
      });
    }
    (resource as { relations: ReadonlyMap<string, CompiledRelation> }).relations = relations;
    (resource as { nestedWritable: ReadonlySet<string> }).nestedWritable = nestedWritable;
  }
  return compiled;
}
