/**
 * Citadel: an authentication server and a configuration-driven REST engine. This is the package's
 * main entry; see also `citadel/fastify`, `citadel/html`, `citadel/migrations`, `citadel/testing`.
 * @packageDocumentation
 */
export { createServer, type CitadelServer, type CreateServerOptions } from './app/server.ts';
export { defineConfig } from './config/define.ts';
export {
  EMAIL_KINDS,
  type EmailKinds,
  type EmailKind,
  type EmailProps,
  type LinkEmailProps,
  type CodeEmailProps,
  type NoticeEmailProps,
  type EmailContent,
  type EmailTemplate,
  type EmailTemplates,
  type OutgoingEmail,
  type OutgoingEmailBase,
  type MailService,
} from './mail/kinds.ts';
export {
  createFetchHandler,
  type CitadelFetchHandler,
  type CreateFetchHandlerOptions,
} from './app/fetch-handler.ts';
export type { FetchContext } from './embed/fetch.ts';
export {
  getCaller,
  type CallerSource,
  type CallerSession,
  type CallerResolving,
  type ResolvedCaller,
} from './embed/caller.ts';
export {
  requireCaller,
  requireSudo,
  expressRequireCaller,
  expressRequireSudo,
  honoRequireCaller,
  honoRequireSudo,
  type RequestWithCaller,
  type NodeMiddleware,
  type HonoLikeContext,
  type HonoMiddleware,
} from './embed/guards.ts';
export type {
  CitadelOptions,
  CitadelConfig,
  ExtensionSettings,
  OAuthProviderConfig,
  Limits,
  LogLevel,
} from './config/types.ts';
// Everything a plugin is written with (`citadel/plugin`), so that the main entry offers it too.
export * from './plugin-api.ts';
export { organizations, type OrganizationsOptions } from './auth/organizations/plugin.ts';
export { oauthProvider } from './auth/oauth-provider/plugin.ts';
export type { OAuthProviderOptions } from './auth/oauth-provider/options.ts';
export {
  defaultPlugins,
  BUILT_IN_PLUGIN_KEYS,
  type BuiltInPluginKey,
  type BuiltInPlugin,
  type DefaultPluginOverrides,
  type DefaultPlugins,
} from './auth/index.ts';
export * from './auth/built-ins.ts';
export type { PluginOptionsMap } from './auth/core/plugin-options.ts';
export { signInFactsFor, type SignInFacts } from './auth/core/sign-in-facts.ts';
export type { PipelinePurpose, SignInResult } from './auth/core/sign-in/types.ts';
export type { EnrollableFactor, FactorId, BuiltInFactorId, ProofScope } from './auth/core/factors/types.ts';
export {
  builtInPages,
  type PageProps,
  type PageName,
  type PageReplacement,
  type PageReplacements,
  type NoPageProps,
  type AccountPageProps,
  type MagicLinkSentPageProps,
  type PipelinePageProps,
  type ResetPasswordPageProps,
  type SetPasswordPageProps,
  type SignInPageProps,
  type SudoPageProps,
  type TokensPageProps,
  type TwoFactorPageProps,
} from './auth/pages.ts';
export type { PluginFactorView } from './auth/core/factors/types.ts';
export type {
  ApiConfig,
  ResourceConfig,
  RelationConfig,
  ColumnType,
  Verb,
  PublishOptions,
  LiveOptions,
} from './api/resource/types.ts';
export { defineResource, type ApiBuilder } from './api/resource/define.ts';
import type * as api from './api/resource/types.ts';
import { createApi as buildApi } from './api/resource/define.ts';

// The resource API's files are documented where they are declared; these aliases carry the
// public descriptions of the names whose declarations have none.

/** A column of a resource: its type, whether clients may write it, validation. */
export type ColumnConfig = api.ColumnConfig;
/** What a resource hook receives: the caller, the version and verb, the request context, the database. */
export type HookContext = api.HookContext;
/** A request as application code sees it: caller, ip, userAgent, headers, organization; the same under every host. */
export type { CallContext, CallOrganization } from './http/request/call-context.ts';
/** Functions a resource runs around reads and writes (scope a query, check or change a record). */
export type ResourceHooks = api.ResourceHooks;
/** The Kysely select query a resource's `query` hook may narrow. */
export type ResourceQuery = api.ResourceQuery;
/** A record as the resource API reads and writes it: column name to value. */
export type ApiRecord = api.ApiRecord;
/** The verbs that write: post, put, patch. */
export type WriteVerb = api.WriteVerb;
/** Start an immutable API definition: `createApi({ apiName, resources }).publish({ version: 'v1' })`. */
export const createApi = buildApi;
/** One alternative of a row rule the engine can plan (see docs/scale.md). */
export type RowAlternative = api.RowAlternative;
export type { Database, CoreTables, UsersTable } from './db/schema.ts';
export type { CookieWrite } from './auth/core/request-context.ts';
export type { PublicUser, TokenRecord, UserRecord } from './http/security/caller.ts';
export type { Outcome } from './http/response/respond.ts';
export { createSearchIndex, dropSearchIndex, type SearchIndexSpec } from './db/search-index.ts';
export { ManualClock, systemClock, type Clock } from './core/clock.ts';
export { InvalidTokenError } from './auth/core/caller.ts';

// Modules whose declarations add settings to CitadelOptions (declaration merging): re-exported so
// that a consumer's compiler always sees those settings (`api`, `seed`, the account center's).
export type * from './api/resource/settings.ts';
export type { AccountCenterSettings, NotificationId } from './auth/core/account-settings.ts';
export type * from './app/seed-setting.ts';
