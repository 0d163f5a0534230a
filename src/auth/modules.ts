import type { FastifyPluginAsync } from 'fastify';
import { accountsModule } from './accounts/routes.ts';
import { tokensModule } from './tokens/routes.ts';
import { socialModule } from './social/routes.ts';
import { passwordModule } from './password/routes.ts';
import { pipelineModule } from './pipeline/routes.ts';
import { magicLinkModule } from './magic-link/routes.ts';
import { factorsModule } from './factors/routes.ts';
import { sudoModule } from './sudo/routes.ts';
import { accountActivity, accountCenterModule } from './account-center/routes.ts';

/**
 * The auth capabilities, each a Fastify plugin that brings its routes, pages and actions.
 * Order matters only where a module registers an action another one lists.
 */
export const authModules: FastifyPluginAsync[] = [
  // First: its request hook (session last-seen) must cover every later module's routes.
  accountActivity,
  accountsModule,
  tokensModule,
  socialModule,
  passwordModule,
  pipelineModule,
  magicLinkModule,
  factorsModule,
  sudoModule,
  accountCenterModule,
];
