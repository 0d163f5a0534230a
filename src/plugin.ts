import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.ts';
import type { CitadelMigration } from './db/migrations/types.ts';
import type { UserRecord } from './http/caller.ts';
import type { PipelineAction } from './auth/core/sign-in/types.ts';
import type { Factor } from './auth/core/factors/types.ts';
import type { SignInFact } from './auth/core/sign-in-facts.ts';
import type { AnyEndpoint } from './auth/core/endpoint.ts';
import type { Tenancy } from './auth/core/tenancy.ts';
import type { Caller } from './http/caller.ts';
import type { PageHeaderPart } from './http/respond.ts';
import type { TSchema } from '@sinclair/typebox';

/** How a session came to be: `rememberSelector` names this device's remember-me row, if any. */
export interface SignedInInfo {
  method: 'sign_in' | 'remember';
  rememberSelector?: string;
  /** The sign-in that ends a sign-up: the account was created just now (registration form or a first social sign-in). */
  registration?: boolean;
}

/**
 * Runs after a session is established for a user, on every sign-in path. `reply` is the answer of
 * that sign-in, for a cookie that goes with it (the account center's device cookie).
 */
export type SignedInListener = (
  request: FastifyRequest,
  user: UserRecord,
  info: SignedInInfo,
  reply: FastifyReply,
) => Promise<void> | void;

/**
 * Runs when a user's password is set (reset or change), on `db`, the transaction that writes the
 * new hash, so that what the old password vouched for ends with it (the account center voids
 * pending email changes).
 */
export type PasswordChangedListener = (db: Kysely<Database>, userId: number, now: Date) => Promise<void>;

/** What a plugin wants to hear about. */
export interface PluginEvents {
  /** After every successful sign-in (password, magic link, social, finished pipeline, remember-me). */
  signedIn?: SignedInListener;
  /** Every request, once its caller is known (for example: note when a session was last seen). */
  request?: (request: FastifyRequest) => Promise<void> | void;
  /** A user's password was set (reset or change), inside the transaction that sets it. */
  passwordChanged?: PasswordChangedListener;
}

/**
 * A capability: its tables (migrations), its routes, the sign-in actions and factors it brings,
 * the built-in pages it replaces and the events it listens to. Every built-in capability is one; an application adds its own in
 * `plugins: [...]` without editing Citadel's files.
 */
export interface CitadelPlugin {
  /** Unique among the server's plugins. */
  name: string;
  /** Names of the plugins this one needs (start-up stops, naming them, when one is missing). */
  dependencies?: readonly string[];
  /** Kysely migrations for the plugin's tables; names sort in the order they run. */
  migrations?: readonly CitadelMigration[];
  /**
   * The plugin's HTTP endpoints as declarations (contract section 15): validated, serialized,
   * redacted and documented from their schemas, served at the same prefix as the auth routes.
   */
  endpoints?: readonly AnyEndpoint[];
  /** Routes registered by hand, for what a declaration cannot express yet. */
  routes?: (app: FastifyInstance) => void | Promise<void>;
  /** Post-sign-in pipeline actions this plugin brings (listed by id in AUTH_*_ACTIONS). */
  actions?: readonly PipelineAction[];
  /**
   * Ways of proving who you are this plugin brings: offered by the `two_factor` sign-in step and
   * by sudo (each as its `scopes` say), after the built-in ones.
   */
  factors?: readonly Factor[];
  // `pages` (the built-in pages it replaces) is declared by `auth/pages.ts`, beside the registry.
  events?: PluginEvents;
  /** Yes/no facts a sign-in asks once the credential is right, read in one statement (by name). */
  signInFacts?: Readonly<Record<string, SignInFact>>;
  /**
   * The active organization of a request and membership checks, for tenant-scoped resources
   * (contract section 17): brought by the organizations plugin, at most one plugin.
   */
  tenancy?: Tenancy;
  /** Fields this plugin adds to `GET /me`'s `data` (for example `organization`), read per request. */
  extendMe?: (caller: Caller, db: Kysely<Database>) => Promise<Record<string, unknown>>;
  /** A part of every page's header for a request (the organization switcher), or null. */
  pageHeader?: PageHeaderPart;
  /** The schemas of the fields `extendMe` adds, for the response schema and the OpenAPI document. */
  meSchema?: Readonly<Record<string, TSchema>>;
}

declare module './config/types.ts' {
  interface ExtensionSettings {
    /**
     * Every plugin of the server, in order: the built-ins when absent. Add your own after them:
     * `plugins: [...defaultPlugins(), myPlugin]` (`defaultPlugins({ magicLink: false })` leaves one out).
     */
    plugins?: CitadelPlugin[];
  }
}

/** Identity helper that types a plugin. */
export function definePlugin<const T extends CitadelPlugin>(plugin: T): T {
  return plugin;
}
