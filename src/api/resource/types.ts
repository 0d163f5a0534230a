import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { TObject } from '@sinclair/typebox';
import type { PublicUser } from '../../auth/core/users.ts';
import type { TokenRecord } from '../../auth/core/personal-access-tokens.ts';
import type { OpenApiVersion } from '../../core/openapi.ts';
import type { CallContext } from '../../http/request/call-context.ts';

/** Lower-case HTTP verbs of the resource API. */
export type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type WriteVerb = 'post' | 'put' | 'patch';

/**
 * A stored column's type: drives default sort/search, the OpenAPI schema and value conversion.
 * `bigint` and `decimal` travel as JSON strings, `boolean` is stored 0/1, `date` is `YYYY-MM-DD`,
 * `json` holds any JSON value as text (see docs/resource-api.md for the SQL type of each).
 */
export type ColumnType =
  'integer' | 'bigint' | 'number' | 'decimal' | 'string' | 'text' | 'boolean' | 'date' | 'datetime' | 'json';

export interface ColumnConfig {
  type: ColumnType;
  /** Filled by the database or the engine; never taken from a payload. */
  readOnly?: boolean;
  nullable?: boolean;
  /** Never sent in responses (for example a secret column). */
  hidden?: boolean;
  /** Set by the engine from the clock: `created` on insert, `updated` on insert and every update. */
  timestamp?: 'created' | 'updated';
  /** decimal only: total digits and digits after the point (default 30 and 10), as in DECIMAL(p, s). */
  precision?: number;
  scale?: number;
  description?: string;
}

/**
 * A relation of a resource. `hasMany`: rows of `table` whose `foreignKey` equals this record's
 * primary key (children; nested writes create them). `belongsTo`: the row of `table` whose
 * `targetKey` equals this record's `foreignKey` (a parent; derive embeds it as an object).
 */
export interface RelationConfig {
  type: 'hasMany' | 'belongsTo';
  /** The resource the related rows are (its columns, validators, hooks and obfuscation apply). */
  resource?: string;
  /** The related table when it is not a resource (for example `users` for a post's author). */
  table?: string;
  foreignKey: string;
  /** Key on the other side: the target's primary key for belongsTo (default `id`). */
  targetKey?: string;
  /** Columns shown for a non-resource target (for example `['id', 'username']`). */
  columns?: string[];
  /** Columns of a non-resource target to obfuscate. */
  obfuscatedFields?: string[];
  /** Types of a non-resource target's columns (default `string`), for conversion and the document. */
  columnTypes?: Record<string, ColumnType>;
}

/** A field a hook adds to records (afterQuery / afterSave): declared so the document shows it. */
export interface ComputedField {
  type: ColumnType;
  nullable?: boolean;
  description?: string;
  /** Columns the hook computes it from: read even when `fields` leaves them out, so that it can. */
  from?: string[];
}

export interface HookContext {
  version: string;
  resource: string;
  verb: Verb;
  user: PublicUser | null;
  token: TokenRecord | null;
  /** Who calls, from where, with which headers, in which organization: the same under every host. */
  request: CallContext;
  /** The open transaction on writes, the database on reads. */
  db: Kysely<Record<string, Record<string, unknown>>>;
}

export type ApiRecord = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hook receives the builder of an application table
export type ResourceQuery = SelectQueryBuilder<any, any, any>;

/**
 * A row rule stated as alternatives (`published` | `mine and not published`), each one a condition
 * an index can serve. They must not overlap: a row matching two would be listed and counted twice.
 */
export type RowAlternative = (query: ResourceQuery) => ResourceQuery;

export interface ResourceHooks {
  /** Return the (immutable) builder it was given or a changed one, for example with a tenant scope. */
  beforeQuery?(query: ResourceQuery, ctx: HookContext): ResourceQuery | void | Promise<ResourceQuery | void>;
  /**
   * The list-read row rule as alternatives that do not overlap (see row-alternatives.ts), or null
   * to use beforeQuery. When given, list reads use it instead of beforeQuery: each alternative an
   * index can serve, joined by UNION ALL for the page and summed for the count.
   */
  rowAlternatives?(
    ctx: HookContext,
  ): RowAlternative[] | null | undefined | Promise<RowAlternative[] | null | undefined>;
  /** Return the records (or change them in place and return nothing). */
  afterQuery?(records: ApiRecord[], ctx: HookContext): ApiRecord[] | void | Promise<ApiRecord[] | void>;
  beforeSave?(data: ApiRecord, ctx: HookContext): ApiRecord | void | Promise<ApiRecord | void>;
  afterSave?(record: ApiRecord, ctx: HookContext): ApiRecord | void | Promise<ApiRecord | void>;
}

/** One resource, as declared with `defineResource()`. */
export interface ResourceConfig {
  /** URL segment and ability prefix (`posts` → `/api/v1/posts`, `posts:read`). */
  name: string;
  /** Table name (default: `name`). */
  table?: string;
  /** Default `id`. */
  primaryKey?: string;
  /** Versions the resource is published in; absent means every version. */
  version?: string | string[];
  columns: Record<string, ColumnConfig>;
  /**
   * What the beforeQuery hook reads of its context. `'caller'`: only the verb, the version and who
   * the caller is, so every anonymous caller gets the same query; the engine then runs the hook and
   * compiles the anonymous single read once, not on every request. Leave it out when the hook reads
   * the request itself (a header, the address, the query string, the time). Default `'request'`.
   */
  beforeQueryReads?: 'caller' | 'request';
  /** Fields hooks add to every record, for the OpenAPI document (the engine sends them as the hook set them). */
  computedFields?: Record<string, ComputedField>;
  relations?: Record<string, RelationConfig>;
  /** Relation names a client may `derive` and write nested. */
  allowedRelations?: string[];
  /** Levels of `derive` a read may request from this resource (default 3). */
  maxDeriveDepth?: number;
  obfuscatedFields?: string[];
  /** Default 100. */
  maxLimit?: number;
  /** Default 20. */
  defaultLimit?: number;
  /** Verbs that need a caller (session or bearer token). */
  requiredAuth?: Verb[];
  /** Validator per write verb (`post`, `put`, `patch`, or `*`): a TypeBox object schema. */
  formClass?: Partial<Record<WriteVerb | '*', TObject>>;
  /** Default: every column. */
  sortable?: string[];
  /** Default: the text columns. */
  searchable?: string[];
  /** Columns a list read may filter by equality (`?status=published`); default none. */
  filterable?: string[];
  /** Default: every verb. */
  exposedMethods?: Verb[];
  /** Default sort when the client gives none (default: primary key ascending). */
  defaultSort?: string;
  hooks?: ResourceHooks;
  description?: string;
  /**
   * How the API docs name one record and several in operation summaries ("Get a post", "List
   * posts"). Default: the name with `_` and `-` as spaces (`my_posts` → "my posts"), singular by
   * the common English endings (`categories` → "category"); set either when that reads wrong.
   */
  labels?: { singular?: string; plural?: string };
  /**
   * The integer column naming the organization a row belongs to: reads see
   * only the caller's active organization's rows, writes set it, each verb needs the role's
   * permission. Needs the organizations plugin; the column is never taken from a validator.
   */
  tenant?: string;
  /**
   * `GET /{resource}/live`: the list's changes as Server-Sent Events (`created`, `updated`,
   * `deleted`), filtered for each subscriber by the list's own rules. Changes made through the
   * resource API are recorded in an outbox in their own transaction (see docs/live.md).
   */
  live?: boolean;
}

/** Limits and timings of live streams (`GET /{resource}/live`); every field has a default. */
export interface LiveOptions {
  /** How long events stay resumable with Last-Event-ID, in seconds (default 600). */
  retentionSeconds?: number;
  /** Seconds between heartbeat comments (default 25). */
  heartbeatSeconds?: number;
  /** Open streams per user (default 10); past it 429. */
  maxStreamsPerUser?: number;
  /** Open streams per process (default 1000); past it 429. */
  maxStreamsPerProcess?: number;
  /** Bytes a client may leave unread before it is disconnected as too slow (default 262144). */
  bufferBytes?: number;
}

/** Router options of one publication. */
export interface PublishOptions {
  version: string;
  docs?: { route?: string; uiRoute?: string };
}

/** API-level configuration. */
export interface ApiConfig {
  /** Title of the generated documentation. */
  apiName: string;
  /** Path prefix of every resource endpoint (default `/api`). */
  apiBaseUrl: string;
  resources: ResourceConfig[];
  /** The versions published, each with its docs routes. */
  publications: PublishOptions[];
  /**
   * OpenAPI version of the generated documents: `3.0` (3.0.3, the default) or `3.1` (3.1.0).
   * Default: the configuration's `openapi`, else 3.0.
   */
  openapi?: OpenApiVersion;
  /** Live streams' limits and timings (resources with `live: true`). */
  live?: LiveOptions;
}
