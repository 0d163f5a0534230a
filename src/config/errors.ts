// ConfigError lives in core/errors.ts, so core and db (below config) can throw it too.
export { ConfigError } from '../core/errors.ts';
