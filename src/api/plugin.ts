import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from './types.ts';

/** The resource API: routes per published version. (Built in the resource API issue.) */
export async function resourceApi(_app: FastifyInstance, _options: { api: ApiConfig }): Promise<void> {}
