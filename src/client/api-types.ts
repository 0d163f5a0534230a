import type { Static, TObject } from '@sinclair/typebox';
import type { ColumnType, ResourceConfig } from '../api/resource/types.ts';
import type { Pagination } from '../api/read/count.ts';
import type { ClientError, ClientResult, RequestOptions } from './result.ts';
import type { LiveEvent, LiveOptions, LiveStream } from './live.ts';

/**
 * The types of `client.api`: one object per published version, one per resource in it, typed from
 * the resource's declaration (`defineResource`). Nothing here exists at run time.
 */

/** Any JSON value (a `json` column). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The JSON form of a column type. */
export type ColumnValue<T extends ColumnType> = T extends 'integer' | 'number'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends 'json'
      ? JsonValue
      : string;

type ListOf<T> = T extends readonly (infer Item)[] ? Item : never;
type Columns<R extends ResourceConfig> = R['columns'];
type Obfuscated<R extends ResourceConfig> = ListOf<R['obfuscatedFields']>;
type Visible<R extends ResourceConfig> = {
  [K in keyof Columns<R>]: Columns<R>[K]['hidden'] extends true ? never : K;
}[keyof Columns<R>] &
  string;
type ValueOf<R extends ResourceConfig, K extends keyof Columns<R>> =
  | (K extends Obfuscated<R> ? string : ColumnValue<Columns<R>[K]['type']>)
  | (Columns<R>[K]['nullable'] extends true ? null : never);
type Computed<R extends ResourceConfig> = NonNullable<R['computedFields']>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A record of the resource as the API sends it: visible columns (obfuscated keys as strings) and computed fields. */
export type ResourceRecord<R extends ResourceConfig> = Simplify<
  { [K in Visible<R>]: ValueOf<R, K> } & {
    [K in keyof Computed<R>]:
      ColumnValue<Computed<R>[K]['type']> | (Computed<R>[K]['nullable'] extends true ? null : never);
  }
>;

/** The primary key's name. */
type PrimaryKey<R extends ResourceConfig> = R['primaryKey'] extends string ? R['primaryKey'] : 'id';
/** The id a path takes: a string for an obfuscated key, else the key column's value. */
export type ResourceId<R extends ResourceConfig> =
  PrimaryKey<R> extends keyof Columns<R> ? ValueOf<R, PrimaryKey<R>> : string | number;

/** Fields a `fields` list may name. */
export type FieldName<R extends ResourceConfig> = Visible<R> | (keyof Computed<R> & string);

type Find<All extends ResourceConfig, Name> = All extends { name: Name } ? All : never;
type Relations<R extends ResourceConfig> = NonNullable<R['relations']>;
type Allowed<R extends ResourceConfig> = ListOf<R['allowedRelations']> & keyof Relations<R> & string;
type Depth = [never, 0, 1, 2, 3];

/** `derive` values: allowed relations, dotted into the allowed relations of their resources (3 levels, the default `maxDeriveDepth`). */
export type DerivePath<R extends ResourceConfig, All extends ResourceConfig, D extends number = 2> = [
  D,
] extends [never]
  ? never
  : {
      [K in Allowed<R>]:
        | K
        | (Relations<R>[K]['resource'] extends string
            ? `${K}.${DerivePath<Find<All, Relations<R>[K]['resource']>, All, Depth[D]>}`
            : never);
    }[Allowed<R>];

/** The record of a related table that is not a resource (its listed columns). */
type TableRecord<Rel> = Rel extends { columns: readonly (infer C extends string)[] }
  ? {
      [K in C]: K extends ListOf<Rel extends { obfuscatedFields: infer O } ? O : never>
        ? string
        : ColumnValue<
            Rel extends { columnTypes: infer T }
              ? K extends keyof T
                ? T[K] & ColumnType
                : 'string'
              : 'string'
          >;
    }
  : Record<string, unknown>;

type HeadOf<D extends string> = D extends `${infer H}.${string}` ? H : D;
type TailOf<D extends string, H extends string> = D extends `${H}.${infer Rest}` ? Rest : never;

/** The record with the derived relations of `D` embedded (nested ones inside them). */
export type Derived<R extends ResourceConfig, All extends ResourceConfig, D extends string> = [D] extends [
  never,
]
  ? unknown
  : {
      [H in HeadOf<D> & keyof Relations<R>]: Relations<R>[H] extends infer Rel
        ? (
            Rel extends { resource: infer Target extends string }
              ? Simplify<ResourceRecord<Find<All, Target>> & Derived<Find<All, Target>, All, TailOf<D, H>>>
              : TableRecord<Rel>
          ) extends infer Target
          ? Rel extends { type: 'hasMany' }
            ? Target[]
            : Target | null
          : never
        : never;
    };

/** The record `fields` and `derive` make: the fields named (and the key), then the relations. */
export type Selected<
  R extends ResourceConfig,
  All extends ResourceConfig,
  F extends string,
  D extends string,
> = Simplify<
  ([F] extends [never]
    ? ResourceRecord<R>
    : Pick<ResourceRecord<R>, (F | PrimaryKey<R>) & keyof ResourceRecord<R>>) &
    Derived<R, All, D>
>;

type Filterable<R extends ResourceConfig> = ListOf<R['filterable']> & keyof Columns<R> & string;
type Sortable<R extends ResourceConfig> = R['sortable'] extends readonly unknown[]
  ? ListOf<R['sortable']> & string
  : Visible<R>;

type Ordered = 'integer' | 'bigint' | 'number' | 'decimal' | 'date' | 'datetime' | 'string' | 'text';
type Text = 'string' | 'text';
/** The operators of one filterable column, each with its value's type. */
export type FilterOperators<R extends ResourceConfig, K extends keyof Columns<R>> = {
  eq?: ValueOf<R, K>;
  ne?: ValueOf<R, K>;
  in?: readonly ValueOf<R, K>[];
  nin?: readonly ValueOf<R, K>[];
} & (K extends Obfuscated<R>
  ? unknown
  : (Columns<R>[K]['type'] extends Ordered
      ? { gt?: ValueOf<R, K>; gte?: ValueOf<R, K>; lt?: ValueOf<R, K>; lte?: ValueOf<R, K> }
      : unknown) &
      (Columns<R>[K]['type'] extends Text ? { contains?: string; starts?: string } : unknown)) &
  (Columns<R>[K]['nullable'] extends true ? { null?: boolean } : unknown);

/** A filter tree on the filterable columns, with `and` / `or` groups. */
export type Filter<R extends ResourceConfig> = { [K in Filterable<R>]?: FilterOperators<R, K> } & {
  and?: readonly Filter<R>[];
  or?: readonly Filter<R>[];
};

/** A `sort` entry: a sortable field, `-` in front for descending. */
export type SortField<R extends ResourceConfig> = Sortable<R> | `-${Sortable<R>}`;

/** The query of a single read. */
export interface ReadQuery<F, D> {
  /** Only these fields (and the key). */
  fields?: F;
  /** Embed these relations (dotted paths embed deeper). */
  derive?: D;
}

/** The query of a list read. */
export interface ListQuery<R extends ResourceConfig, F, D> extends ReadQuery<F, D> {
  page?: number;
  limit?: number;
  sort?: readonly SortField<R>[];
  search?: string;
  filter?: Filter<R>;
  count?: 'exact' | 'none' | 'estimated';
  /** `pagination.nextCursor` of the previous page (with the same sort, filter and search). */
  cursor?: string;
}

/** The pagination block of a list read: the server's own type. */
export type { Pagination };

/** What a list read resolves to. */
export type ListResult<T> =
  { data: T[]; pagination: Pagination; error: null } | { data: null; pagination: null; error: ClientError };

type Validator<R extends ResourceConfig, V extends 'post' | 'put' | 'patch'> =
  NonNullable<R['formClass']> extends infer Forms
    ? V extends keyof Forms
      ? Forms[V]
      : '*' extends keyof Forms
        ? Forms['*']
        : never
    : never;
type ValidatorInput<R extends ResourceConfig, V extends 'post' | 'put' | 'patch'> =
  Validator<R, V> extends TObject ? Static<Validator<R, V>> : never;

/** The tenant column of a tenant-scoped resource (`tenant: 'organization_id'`), else `never`. */
type TenantColumn<R extends ResourceConfig> = R extends { tenant: infer C extends string } ? C : never;
/**
 * What a write body may say of the tenant column: nothing, since the server sets it to the
 * caller's active organization. It may be given only as that organization's id; another id is a
 * 422 naming the column.
 */
type TenantInput<R extends ResourceConfig> = { [K in TenantColumn<R>]?: number };

type Writable<R extends ResourceConfig> = {
  [K in Allowed<R>]: Relations<R>[K] extends { type: 'hasMany'; resource: string } ? K : never;
}[Allowed<R>];
type ChildTarget<R extends ResourceConfig, All extends ResourceConfig, K extends keyof Relations<R>> = Find<
  All,
  Relations<R>[K]['resource']
>;
type ChildCreate<R extends ResourceConfig, All extends ResourceConfig, K extends keyof Relations<R>> = Omit<
  ValidatorInput<ChildTarget<R, All, K>, 'post'> & TenantInput<ChildTarget<R, All, K>>,
  Relations<R>[K]['foreignKey']
>;
type ChildChange<R extends ResourceConfig, All extends ResourceConfig, K extends keyof Relations<R>> =
  | ChildCreate<R, All, K>
  | ({ id: ResourceId<ChildTarget<R, All, K>> } & Partial<ChildCreate<R, All, K>>)
  | { id: ResourceId<ChildTarget<R, All, K>>; _delete: true };

/**
 * The body of a create: the `post` validator's fields, and children of the allowed hasMany
 * relations. A tenant-scoped resource's tenant column is optional (the server sets it).
 */
export type CreateInput<R extends ResourceConfig, All extends ResourceConfig> = Simplify<
  ValidatorInput<R, 'post'> & TenantInput<R> & { [K in Writable<R>]?: ChildCreate<R, All, K>[] }
>;
/** The body of an update (PATCH) or a replacement (PUT), with nested child changes. */
export type ChangeInput<
  R extends ResourceConfig,
  All extends ResourceConfig,
  V extends 'put' | 'patch',
> = Simplify<ValidatorInput<R, V> & TenantInput<R> & { [K in Writable<R>]?: ChildChange<R, All, K>[] }>;

type Exposed<R extends ResourceConfig, V extends string> = R['exposedMethods'] extends readonly unknown[]
  ? V extends ListOf<R['exposedMethods']>
    ? true
    : false
  : true;
type HasValidator<R extends ResourceConfig, V extends 'post' | 'put' | 'patch'> = [Validator<R, V>] extends [
  never,
]
  ? false
  : Exposed<R, V>;

/** Reads of a resource. */
export interface ResourceReads<R extends ResourceConfig, All extends ResourceConfig> {
  /** `GET /{resource}`: a page of records, `fields` narrowing and `derive` extending their type. */
  list<const F extends readonly FieldName<R>[] = [], const D extends readonly DerivePath<R, All>[] = []>(
    query?: ListQuery<R, F, D>,
    options?: RequestOptions,
  ): Promise<ListResult<Selected<R, All, F[number], D[number]>>>;
  /** `GET /{resource}/{id}`. */
  get<const F extends readonly FieldName<R>[] = [], const D extends readonly DerivePath<R, All>[] = []>(
    id: ResourceId<R>,
    query?: ReadQuery<F, D>,
    options?: RequestOptions,
  ): Promise<ClientResult<Selected<R, All, F[number], D[number]>>>;
}

/** `POST /{resource}`: one record, or an array of them (all or nothing). */
export interface ResourceCreate<R extends ResourceConfig, All extends ResourceConfig> {
  create(body: CreateInput<R, All>, options?: RequestOptions): Promise<ClientResult<ResourceRecord<R>>>;
  create(
    body: readonly CreateInput<R, All>[],
    options?: RequestOptions,
  ): Promise<ClientResult<ResourceRecord<R>[]>>;
}
/** `PATCH /{resource}/{id}`: the fields given. */
export interface ResourceUpdate<R extends ResourceConfig, All extends ResourceConfig> {
  update(
    id: ResourceId<R>,
    body: ChangeInput<R, All, 'patch'>,
    options?: RequestOptions,
  ): Promise<ClientResult<ResourceRecord<R>>>;
}
/** `PUT /{resource}/{id}`: every writable field. */
export interface ResourceReplace<R extends ResourceConfig, All extends ResourceConfig> {
  replace(
    id: ResourceId<R>,
    body: ChangeInput<R, All, 'put'>,
    options?: RequestOptions,
  ): Promise<ClientResult<ResourceRecord<R>>>;
}
/** `DELETE /{resource}/{id}`. */
export interface ResourceDelete<R extends ResourceConfig> {
  delete(id: ResourceId<R>, options?: RequestOptions): Promise<ClientResult<{ id: ResourceId<R> }>>;
}

/** The query of a live stream: the list's `filter`, and `fields` to narrow each record. */
export interface LiveQuery<R extends ResourceConfig, F> {
  filter?: Filter<R>;
  /** Only these fields (and the key) in each event's `record`. */
  fields?: F;
}

/** `GET /{resource}/live` of a resource declared `live: true`. */
export interface ResourceLive<R extends ResourceConfig, All extends ResourceConfig> {
  /**
   * The list's changes as they commit, for the rows this caller may read: an async iterator of
   * `created`, `updated`, `deleted` and `reset` events that reconnects with `Last-Event-ID`.
   */
  live<const F extends readonly FieldName<R>[] = []>(
    query?: LiveQuery<R, F>,
    options?: LiveOptions,
  ): LiveStream<LiveEvent<Selected<R, All, F[number], never>, ResourceId<R>>>;
}

/** A brand no value has at run time: it exists in the types alone (nothing to read, nothing bundled). */
declare const tenantBrand: unique symbol;
/**
 * The mark of a tenant-scoped resource's client (`defineResource({ tenant: 'organization_id' })`):
 * every call acts in the caller's active organization, its reads see that
 * organization's rows alone, its writes set `Column` (a body may leave it out), and without an
 * active organization the server answers 403. A type only: the brand has no run-time value.
 */
export interface TenantScoped<Column extends string = string> {
  readonly [tenantBrand]: Column;
}
/** The tenant column of a resource client (`TenantOf<typeof client.api.v1.projects>`), or `never` when it is not tenant-scoped. */
export type TenantOf<Client> = Client extends TenantScoped<infer Column> ? Column : never;

/**
 * One resource's methods: reads, `live` when it is declared live, and each write its declaration
 * serves (a validator, an exposed verb); a tenant-scoped resource's client is also
 * `TenantScoped<column>`.
 */
export type ResourceClient<R extends ResourceConfig, All extends ResourceConfig> = ([
  TenantColumn<R>,
] extends [never]
  ? unknown
  : TenantScoped<TenantColumn<R>>) &
  (Exposed<R, 'get'> extends true ? ResourceReads<R, All> : unknown) &
  (R extends { live: true } ? ResourceLive<R, All> : unknown) &
  (HasValidator<R, 'post'> extends true ? ResourceCreate<R, All> : unknown) &
  (HasValidator<R, 'patch'> extends true ? ResourceUpdate<R, All> : unknown) &
  (HasValidator<R, 'put'> extends true ? ResourceReplace<R, All> : unknown) &
  (Exposed<R, 'delete'> extends true ? ResourceDelete<R> : unknown);

type InVersion<R extends ResourceConfig, V extends string> = R extends ResourceConfig
  ? R['version'] extends string | readonly string[]
    ? V extends ListOf<[R['version']]> | ListOf<R['version']>
      ? R
      : never
    : R
  : never;

/** `client.api`: per published version, its resources. */
export type ApiClient<All extends ResourceConfig, Versions extends string> = {
  [V in Versions]: {
    [R in InVersion<All, V> as R['name']]: ResourceClient<R, All>;
  };
};
