import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../resource/types.ts';
import { LiveHub, registerHub } from './hub.ts';

/**
 * The live hub of a server with live resources: started with the resource API, its streams closed
 * (with a reconnect hint) before the server stops taking connections, its timers and transport
 * stopped when it closes.
 */
export async function startLiveHub(app: FastifyInstance, api: ApiConfig): Promise<LiveHub> {
  const hub = new LiveHub({
    db: app.db,
    dialect: app.dialect,
    databaseUrl: app.config.databaseUrl,
    redisUrl: app.config.redisUrl,
    services: app.citadel,
    log: app.log,
    options: api.live,
  });
  await hub.start();
  const unregister = registerHub(app.db, hub);
  app.addHook('preClose', async () => hub.stop());
  app.addHook('onClose', async () => {
    unregister();
    await hub.stop();
  });
  return hub;
}
