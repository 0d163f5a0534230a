export { createServer, type CitadelServer, type CreateServerOptions } from './server.ts';
export { defineConfig } from './config/define.ts';
export type { CitadelOptions, CitadelConfig, OAuthProviderConfig, Limits } from './config/types.ts';
export type { PipelineAction, ActionContext, SignInResult } from './auth/pipeline/types.ts';
export type {
  ApiConfig,
  ResourceConfig,
  RelationConfig,
  ColumnConfig,
  HookContext,
  ResourceHooks,
  ResourceQuery,
  ApiRecord,
  Verb,
  WriteVerb,
  PublishOptions,
} from './api/types.ts';
export { defineResource, createApi, type ApiBuilder } from './api/define.ts';
export type { CitadelMigration } from './db/migrations/types.ts';
export { ManualClock, systemClock, type Clock } from './core/clock.ts';
export {
  HttpError,
  ValidationError,
  BadRequestError,
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  TooManyRequestsError,
} from './core/errors.ts';
