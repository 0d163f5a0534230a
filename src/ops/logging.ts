/**
 * Readable logs for a person at a terminal in development (pino-pretty, in pino's transport
 * thread); JSON lines for everything else: production, pipes, files, log collectors.
 */
export function developmentLogTransport(options: {
  production: boolean;
  ownStream: boolean;
  isTty: boolean;
}) {
  if (options.production || options.ownStream || !options.isTty) return {};
  return {
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
    },
  };
}
