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

/** What a successful answer of the endpoint is: the union of its declared response bodies. */
export type AuthData<E extends EndpointShape> = {
  [K in keyof E['responses']]: StaticOf<E['responses'][K]>;
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

/** `client.auth` for this union of endpoint declarations. */
export type AuthClient<E> = string extends ClientEndpoints<E>['path']
  ? // Declarations whose paths are not literal (typed `AnyEndpoint`): untyped methods.
    UntypedAuthClient
  : Tree<Named<ClientEndpoints<E>, ClientEndpoints<E>>>;

/** An auth client without declarations: any chain of names, any input, an untyped answer. */
export interface UntypedAuthClient {
  [name: string]: UntypedAuthClient &
    ((
      input?: Record<string, unknown>,
      options?: RequestOptions & { query?: Record<string, unknown> },
    ) => Promise<ClientResult<Record<string, unknown>>>);
}
