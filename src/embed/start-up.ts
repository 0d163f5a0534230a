import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { CitadelConfig, CitadelOptions } from '../config/types.ts';
import { developmentLogTransport } from '../ops/logging.ts';

const INFO_LEVELS = ['trace', 'debug', 'info'];

/** Whether a logger writes info lines (a plain `Fastify()` has a logger that writes nothing). */
function showsInfo(logger: FastifyBaseLogger): boolean {
  const level = (logger as { level?: unknown }).level;
  return typeof level === 'string' && INFO_LEVELS.includes(level);
}

/**
 * Where development mail and start-up notices go: the host's logger when it shows info lines,
 * else Citadel's own (stdout at LOG_LEVEL, readable at a terminal), so links and codes mailed
 * through the log transport reach the terminal whatever the host's logger.
 */
export function visibleLogger(host: FastifyBaseLogger, config: CitadelConfig): FastifyBaseLogger {
  if (showsInfo(host)) return host;
  // Fastify's own pino setup (pino is Fastify's dependency, not Citadel's); the instance never serves.
  return Fastify({
    logger: {
      level: config.logLevel,
      ...developmentLogTransport({
        production: config.production,
        ownStream: false,
        isTty: Boolean(process.stdout.isTTY),
      }),
    },
  }).log;
}

/**
 * Embedded, Citadel cannot know the address users reach it at (the host's port, its proxy): without
 * `appUrl` (APP_URL) it uses `http://localhost:<port>` and its mount path, and says so once at start.
 */
export function appUrlNotice(options: CitadelOptions, config: CitadelConfig): string | null {
  const env = options.env ?? process.env;
  if (options.appUrl !== undefined || env.APP_URL) return null;
  return `appUrl is not set: emailed links and OAuth redirects use ${config.appUrl}; set appUrl (APP_URL) to the address users reach Citadel at`;
}
