/**
 * What a plugin is written with: `definePlugin` and the plugin's parts (endpoints, hooks, events,
 * `init`, error codes, security events, migrations, pages), the errors an endpoint or hook answers
 * with, the `html` template and the migration helpers, and the auth core's services a capability
 * builds on (users, sessions, the sign-in pipeline, sudo, factors, tokens, tenancy). Citadel's
 * built-in plugins import from this module only, so a third-party plugin can do anything they do.
 * @packageDocumentation
 */
export {
  definePlugin,
  type CitadelPlugin,
  type PluginInitContext,
  type PluginErrorCodes,
  type PluginHooks,
  type PluginAsset,
  type HookMatch,
  type HookTarget,
  type HookAddition,
  type BeforeHook,
  type BeforeHookHandler,
  type AfterHook,
  type AfterHookHandler,
  type SignedInEvent,
  type SignedInInfo,
  type SignedInListener,
  type PasswordChangedListener,
  type RequestListener,
} from './auth/core/plugin.ts';
export {
  defineEndpoint,
  type Endpoint,
  type AnyEndpoint,
  type EndpointAuth,
  type EndpointInput,
  type EndpointMethod,
  type EndpointRateLimit,
  type PluginRateLimit,
  type RateLimitInput,
  type EndpointResult,
} from './auth/core/endpoint.ts';
export { pageEndpoint } from './auth/core/page-endpoint.ts';
export { Envelope, PublicUserSchema } from './auth/core/envelope-schema.ts';
export { pluginOptions, givenOptions, checkInteger, envInteger } from './auth/core/plugin-options.ts';
export type { CitadelConfig, OAuthProviderConfig } from './config/types.ts';
export {
  recordSecurityEvent,
  sweepSecurityEvents,
  CORE_SECURITY_EVENTS,
  changeWithEvent,
  sessionEvent,
  originOf,
  type EventOrigin,
  type DeclaredEventTypes,
  type SecurityEventDeclaration,
  type SecurityEventType,
} from './auth/core/security-events.ts';
/** The security events list (`GET /account/events`): its endpoint, with a page view, and its rows. */
export {
  securityEventListEndpoint,
  type EventPage,
  type SecurityEventView,
} from './auth/core/security-event-list.ts';
export type { CitadelServices } from './auth/core/services.ts';
export { setCookie, type RequestContext } from './auth/core/request-context.ts';
export type { Caller, TokenRecord } from './http/security/caller.ts';
export type { CallContext } from './http/request/call-context.ts';
export type { BearerVerifier } from './auth/core/caller.ts';
export {
  signingKeys,
  coverSigningLifetime,
  provideSigningKeys,
  signingLifetime,
  jwsHeaderTyp,
  JWS_ALGORITHMS,
  type SigningKeySet,
  type SigningKey,
  type JwsAlgorithm,
  type PublicJwk,
} from './auth/core/signing-keys.ts';
export {
  signInFactsFor,
  selectUserWithFacts,
  forgetSignInFacts,
  type SignInFact,
} from './auth/core/sign-in-facts.ts';
export type { PipelineAction, ActionContext } from './auth/core/sign-in/types.ts';
export type { Factor, EnrollableFactor, PluginFactorView, ProofScope } from './auth/core/factors/types.ts';
export type { PageContext, PageRenderer, PageHeaderPart } from './http/response/respond.ts';
export {
  HttpError,
  ValidationError,
  BadRequestError,
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  TooManyRequestsError,
  type HttpErrorOptions,
} from './core/errors.ts';
export { ConfigError } from './core/errors.ts';
export { html, raw, escapeHtml, SafeHtml, type HtmlValue } from './core/html.ts';
export { layout, field, form, csrfField, when, servedLinks, signInLink } from './http/html/layout.ts';
export {
  defineMessages,
  written,
  LocalText,
  type MessageCatalog,
  type Language,
  type Text,
  type Texts,
} from './core/i18n/catalog.ts';
export type {
  EnglishCatalog,
  Translation,
  CompleteTranslation,
  Formatter,
  PluralForms,
} from './core/i18n/types.ts';
export { idColumn, userIdColumn, longText, mysqlExactText, TIMESTAMP } from './db/columns.ts';
export type { CitadelMigration } from './db/migrations/types.ts';
export type { Dialect } from './db/url.ts';

/** The users table: reading a user for a page or an answer, and the rules of names and addresses. */
export {
  publicUser,
  isDisabled,
  normalizeEmail,
  normalizeUsername,
  type UserRecord,
} from './auth/core/users.ts';
export { USERNAME } from './auth/core/username-rule.ts';
export { isAdmin, grantAdminEmails } from './auth/core/roles.ts';
export { accountSettings } from './auth/core/account-settings.ts';
export { parseMailbox } from './http/request/email-address.ts';

/** Sessions and cookies: ending a session, remember-me, what a session holds. */
export { endSession, setRememberCookie } from './auth/core/sessions.ts';
export type { SessionData, SessionEndWatcher } from './http/sessions/store.ts';

/**
 * The sign-in pipeline, for a plugin that signs users in (a password, a link, a social login) or
 * adds a step after the password: start a sign-in, run its pending actions, answer.
 */
export { beginSignIn, actionContext, proceed, requireCurrentStep } from './auth/core/sign-in/runner.ts';
export { signInAnswer } from './auth/core/sign-in/response.ts';
export { assertMaySignIn, canBeActivated } from './auth/core/sign-in/activation.ts';
export {
  readPending,
  savePending,
  wipePending,
  maskEmail,
  type PendingContext,
} from './auth/core/sign-in/pending.ts';

/** Factors (a second factor, a sudo proof): the registry of every plugin's factors and a proof's check. */
export { availableFactors, findFactor } from './auth/core/factors/registry.ts';
export { readProof } from './auth/core/factors/proof.ts';
export { beginSecondFactorAttempt, proofNotWrong } from './auth/core/second-factor-budget.ts';

/** Sudo (step-up) mode: require it on an endpoint, grant and end it, where to return after it. */
export { isSudoActive, requireSudo } from './auth/core/sudo/guard.ts';
export { SUDO_KEY, grantSudo, activeSudo, endSudo } from './auth/core/sudo/state.ts';
export { sudoFactorsFor, hasSudoFactor } from './auth/core/sudo/eligible.ts';
export { safeNext } from './auth/core/sudo/next.ts';

/**
 * Guarding secrets and sends: once-only claims and single-use tokens that concurrent requests agree
 * on, failure budgets, email send limits, the password rules, the password-changed notice.
 */
export { claimOnce, pipelineClaimsMigration } from './auth/core/claims.ts';
export { claimSingleUseToken } from './auth/core/single-use-tokens.ts';
export { FailureBudget } from './auth/core/failure-budget.ts';
export { emailSendLimits } from './auth/core/send-limits.ts';
export { NEW_PASSWORD_FIELDS, newPasswordProblems } from './auth/core/password-rules.ts';
export { passwordChanged } from './auth/core/password-changed.ts';

/** Access tokens and bearer callers: abilities a token holds, the resource API's 401 challenge. */
export { isValidAbility, hasAbility, coversAbilities } from './auth/core/abilities.ts';
export { setBearerChallenge } from './auth/core/bearer-challenge.ts';

/** Organizations: the tenant a request acts in. */
export {
  ACTIVE_ORGANIZATION_KEY,
  forgetTenant,
  type ActiveTenant,
  type Tenancy,
  type TenantRequest,
} from './auth/core/tenancy.ts';

/** Lists and pages of the account area: pagination, a device's description, notifications. */
export {
  pagePagination,
  pageQuery,
  pageAsked,
  PagePaginationSchema,
  type PagePagination,
} from './auth/core/page-pagination.ts';
export { describeDevice } from './auth/core/device.ts';
export { notify } from './auth/core/notify.ts';

/** Messages: the core's and the auth core's catalogs (their keys, their languages), mail's locale. */
export { coreMessages } from './core/i18n/messages/index.ts';
export { authMessages } from './auth/core/messages/index.ts';
export { englishOnly } from './core/i18n/languages.ts';
export { ownName } from './http/html/language-switcher.ts';
export { recipientLocale } from './mail/emails.ts';
export { composeMail } from './mail/templates.ts';

/** Secrets and time: random tokens, constant-time comparison, sealed secrets, the clock. */
export { randomToken, safeEqual, sha256Hex, SecretBox } from './core/crypto.ts';
export { isoAfter, type Clock } from './core/clock.ts';

/**
 * The database: transactions with after-commit effects, deadlock retries, inserts and ids on every
 * dialect, statements compiled once. `Database` is every table; a plugin adds its own to
 * `PluginTables` (below), not to this re-exported type.
 */
export type { Database } from './db/schema.ts';
export { transactionWithEffects } from './db/after-commit.ts';
export { retryOnDeadlock } from './db/retry.ts';
export { insertReturningId } from './db/insert.ts';
export { rowIdFromText, MAX_ROW_ID } from './db/row-id.ts';
export { once, withParameters } from './db/compiled.ts';

/**
 * The event types of plugins written against `citadel/plugin`, by declaration merging, so that
 * `recordSecurityEvent` accepts them: `declare module 'citadel/plugin' { interface
 * PluginSecurityEventTypes extends DeclaredEventTypes<typeof MY_EVENTS> {} }`. (A re-exported
 * interface cannot be merged through the re-export: this one is declared here.)
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginSecurityEventTypes {}
/** The interface above, under a name the augmentation below can extend. */
type ThirdPartyEventTypes = PluginSecurityEventTypes;

declare module './auth/core/security-events.ts' {
  // Third-party types join the built-ins' in `SecurityEventType`.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- only merges
  interface PluginSecurityEventTypes extends ThirdPartyEventTypes {}
}

/**
 * The tables of plugins, by declaration merging, so that every typed query (`services.db`) knows
 * them: `declare module 'citadel/plugin' { interface PluginTables extends MyTables {} }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginTables {}
/** The interface above, under a name the augmentation below can extend. */
type ThirdPartyTables = PluginTables;

declare module './db/schema.ts' {
  // Plugin tables join the core's in `Database`.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- only merges
  interface Database extends ThirdPartyTables {}
}
