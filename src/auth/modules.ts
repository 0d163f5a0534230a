import type { FastifyPluginAsync } from 'fastify';
import { accountsModule } from './accounts/routes.ts';

/**
 * The auth capabilities, each a Fastify plugin that brings its routes, pages and actions.
 * Order matters only where a module registers an action another one lists.
 */
export const authModules: FastifyPluginAsync[] = [accountsModule];
