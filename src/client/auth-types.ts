import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { ClientResult, RequestOptions } from './result.ts';

/**
 * The types of `client.auth`: one method per declared endpoint of the configuration's plugins,
 * named by the rule of `naming.ts` (written again here at the type level), its input and answer
 * typed from the declaration's schemas. Nothing here exists at run time.
 */

/** What the client reads of an endpoint declaration (src/auth/core/endpoint.ts). */
export interface EndpointShape {
  method: string;
  path: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  responses: object;
  pageOnly?: boolean;
}

type Segments<P extends string> = P extends `/${infer Rest}`
  ? Segments<Rest>
  : P extends `${infer Head}/${infer Tail}`
    ? [Head, ...Segments<Tail>]
    : P extends ''
      ? []
      : [P];
type Dashed<S extends string> = S extends `${infer Head}.${infer Tail}` ? `${Head}-${Dashed<Tail>}` : S;
type TrimDashes<S extends string> = S extends `-${infer Rest}` ? TrimDashes<Rest> : S;
type CamelDashed<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${CamelDashed<Capitalize<Tail>>}`
  : S;
/** `two-factor` → `twoFactor`, `.well-known` → `wellKnown`, `jwks.json` → `jwksJson`. */
type Camel<S extends string> = CamelDashed<TrimDashes<Dashed<S>>>;
type StaticSegments<S extends string[]> = S extends [
  infer Head extends string,
  ...infer Tail extends string[],
]
  ? Head extends `:${string}`
    ? StaticSegments<Tail>
    : [Camel<Head>, ...StaticSegments<Tail>]
  : [];
type Join<S extends string[]> = S extends [infer Head extends string]
  ? Head
  : S extends [infer Head extends string, ...infer Tail extends string[]]
    ? `${Head}.${Join<Tail>}`
    : '';

/** `/two-factor/enroll/start` → `twoFactor.enroll.start` (parameters left out). */
export type ChainOf<P extends string> = Join<StaticSegments<Segments<P>>>;
type EndsWithParam<P extends string> = Segments<P> extends [...string[], `:${string}`] ? true : false;

type KeyOf<E extends EndpointShape> = `${E['method']} ${E['path']}`;
type OthersOnChain<
  All extends EndpointShape,
  C extends string,
  Self extends string,
> = All extends EndpointShape
  ? [ChainOf<All['path']>] extends [C]
    ? [C] extends [ChainOf<All['path']>]
      ? KeyOf<All> extends Self
        ? never
        : All
      : never
    : never
  : never;
type Extending<All extends EndpointShape, C extends string> = All extends EndpointShape
  ? ChainOf<All['path']> extends `${C}.${string}`
    ? All
    : never
  : never;
type ListGet<E extends EndpointShape> = E extends { method: 'GET' }
  ? EndsWithParam<E['path']> extends true
    ? never
    : E
  : never;
type Item<E extends EndpointShape> = E extends EndpointShape
  ? EndsWithParam<E['path']> extends true
    ? E
    : never
  : never;
/** A chain with a GET of its own (a list) and a route ending in a parameter (an item). */
type IsCollection<OnChain extends EndpointShape> = [ListGet<OnChain>] extends [never]
  ? false
  : [Item<OnChain>] extends [never]
    ? false
    : true;
type VerbOf<Self extends EndpointShape, OnChain extends EndpointShape> = Self['method'] extends 'GET'
  ? EndsWithParam<Self['path']> extends true
    ? 'get'
    : IsCollection<OnChain> extends true
      ? 'list'
      : 'get'
  : Self['method'] extends 'POST'
    ? IsCollection<OnChain> extends true
      ? 'create'
      : 'send'
    : Self['method'] extends 'PUT'
      ? 'replace'
      : Self['method'] extends 'PATCH'
        ? 'update'
        : 'delete';

/** The client method name of one endpoint among all of them (the rule of `naming.ts`). */
export type NameOf<Self extends EndpointShape, All extends EndpointShape> =
  ChainOf<Self['path']> extends infer C extends string
    ? OthersOnChain<All, C, KeyOf<Self>> extends infer Others extends EndpointShape
      ? [Others] extends [never]
        ? C extends ''
          ? VerbOf<Self, Self>
          : [Extending<All, C>] extends [never]
            ? C
            : `${C}.${VerbOf<Self, Self>}`
        : C extends ''
          ? VerbOf<Self, Self | Others>
          : `${C}.${VerbOf<Self, Self | Others>}`
      : never
    : never;

type Named<E extends EndpointShape, All extends EndpointShape> = E extends EndpointShape
  ? [NameOf<E, All>, E]
  : never;

type Head<N extends string> = N extends `${infer H}.${string}` ? H : N;
type Leaf<Pairs, H extends string> = Pairs extends [H, infer E] ? E : never;
type Below<Pairs, H extends string> = Pairs extends [`${H}.${infer Rest}`, infer E] ? [Rest, E] : never;

type NamesOf<Pairs> = Pairs extends [infer N extends string, unknown] ? N : never;
type Tree<Pairs> = {
  [H in Head<NamesOf<Pairs>>]: ([Leaf<Pairs, H>] extends [never]
    ? unknown
    : Leaf<Pairs, H> extends infer E extends EndpointShape
      ? AuthMethod<E>
      : never) &
    ([Below<Pairs, H>] extends [never] ? unknown : Tree<Below<Pairs, H>>);
};

/** Properties without the index signature an `Envelope()` schema carries. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/** The static type of a schema; an object schema without its index signature. */
type StaticOf<S> =
  S extends TObject<infer P extends TProperties>
    ? Static<TObject<Known<P>>>
    : S extends TSchema
      ? Static<S>
      : never;
/** A declared part (params, query, body), or nothing when the declaration has none. */
type Part<S> = [NonNullable<S>] extends [never]
  ? object
  : TSchema extends NonNullable<S>
    ? object
    : StaticOf<NonNullable<S>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** An endpoint's input: its path parameters, with its query (GET, DELETE) or its body (other methods). */
export type AuthInput<E extends EndpointShape> = Simplify<
  Part<E['params']> & (E['method'] extends 'GET' | 'DELETE' ? Part<E['query']> : Part<E['body']>)
>;

/** What the client reads of a plugin's after hook (src/auth/core/plugin.ts, `AfterHook`). */
export interface AfterHookShape {
  match: object;
  schema?: { data?: object; fields?: object };
}

/**
 * Whether a criterion of a match selects the endpoint, known at compile time: absent, or a string
 * literal (or list of them) the endpoint's own value is one of. A RegExp, a function or a value
 * typed only `string` is not known: false.
 */
type CriterionSelects<M, K extends string, Value> = K extends keyof M
  ? undefined extends M[K]
    ? false
    : [M[K]] extends [string]
      ? string extends M[K]
        ? false
        : [Value] extends [M[K]]
          ? true
          : false
      : [M[K]] extends [readonly (infer L extends string)[]]
        ? string extends L
          ? false
          : [Value] extends [L]
            ? true
            : false
        : false
  : true;
type EndpointAction<E> = E extends { action: infer A extends string } ? A : never;
/** Whether a hook's match statically selects the endpoint (every criterion given holds). */
type HookSelects<M, E extends EndpointShape> = [
  CriterionSelects<M, 'action', EndpointAction<E>>,
  CriterionSelects<M, 'path', E['path']>,
  CriterionSelects<M, 'method', E['method']>,
] extends [true, true, true]
  ? true
  : false;
/** A hook schema's properties as optional fields (nothing for a schema typed only as a record). */
type OptionalStatics<S> = string extends keyof S
  ? never
  : { [K in keyof S]?: S[K] extends TSchema ? Static<S[K]> : never };
// `never` when the hook adds none: `unknown` in a union would absorb the other hooks' fields.
type HookPart<H, Part extends 'data' | 'fields'> = H extends { schema: { [P in Part]: infer S } }
  ? OptionalStatics<S>
  : never;
type Intersection<U> = [U] extends [never]
  ? unknown
  : (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
    ? I
    : never;
type Selected<H, E extends EndpointShape> = H extends AfterHookShape
  ? HookSelects<H['match'], E> extends true
    ? H
    : never
  : never;

/** The endpoint with what the after hooks that select it add (`added`), or as it is when none does. */
export type WithHookFields<E, H> = E extends EndpointShape
  ? [Selected<H, E>] extends [never]
    ? E
    : E & {
        added: {
          fields: Intersection<HookPart<Selected<H, E>, 'fields'>>;
          data: Intersection<HookPart<Selected<H, E>, 'data'>>;
        };
      }
  : never;

/** A success answer with the fields after hooks add beside its own, and in its `data` object. */
type WithAdded<T, Added> = Added extends { fields: infer F; data: infer D }
  ? T extends object
    ? T extends { data: infer Data extends object }
      ? Simplify<Omit<T, 'data'> & F & { data: Simplify<Data & D> }>
      : Simplify<T & F>
    : T
  : T;

/**
 * What a successful answer of the endpoint is: the union of its declared response bodies, a 2xx
 * one with what the after hooks that select the endpoint add (optional).
 */
export type AuthData<E extends EndpointShape> = {
  [K in keyof E['responses']]: E extends { added: infer Added }
    ? `${K & (string | number)}` extends `2${string}`
      ? WithAdded<StaticOf<E['responses'][K]>, Added>
      : StaticOf<E['responses'][K]>
    : StaticOf<E['responses'][K]>;
}[keyof E['responses']];

/** Per-call options of an auth method: the query of a POST, headers, an abort signal. */
export type AuthCallOptions<E extends EndpointShape> = RequestOptions & {
  query?: E['method'] extends 'GET' | 'DELETE' ? never : Partial<Part<E['query']>>;
};

/** One auth method: its input is optional when every field of it is. */
export type AuthMethod<E extends EndpointShape> =
  object extends AuthInput<E>
    ? (input?: AuthInput<E>, options?: AuthCallOptions<E>) => Promise<ClientResult<AuthData<E>>>
    : (input: AuthInput<E>, options?: AuthCallOptions<E>) => Promise<ClientResult<AuthData<E>>>;

/** The endpoints a client method exists for: every declared one but the page-only ones. */
export type ClientEndpoints<E> = E extends EndpointShape ? (E extends { pageOnly: true } ? never : E) : never;

/**
 * `client.auth` for this union of endpoint declarations and of the plugins' after hooks (`H`),
 * whose schemas add optional fields to the answers of the endpoints they select.
 */
export type AuthClient<E, H = never> = string extends ClientEndpoints<E>['path']
  ? // Declarations whose paths are not literal (typed `AnyEndpoint`): untyped methods.
    UntypedAuthClient
  : Tree<Named<WithHookFields<ClientEndpoints<E>, H>, WithHookFields<ClientEndpoints<E>, H>>>;

/** An auth client without declarations: any chain of names, any input, an untyped answer. */
export interface UntypedAuthClient {
  [name: string]: UntypedAuthClient &
    ((
      input?: Record<string, unknown>,
      options?: RequestOptions & { query?: Record<string, unknown> },
    ) => Promise<ClientResult<Record<string, unknown>>>);
}
