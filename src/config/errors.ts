/** A configuration problem: start-up stops with this one-line message and exit code 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
