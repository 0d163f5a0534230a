/**
 * The Redis connection Citadel opens for REDIS_URL, as its public types name it: the part of the
 * ioredis client that applications and tests use. ioredis is an optional peer dependency, so the
 * declarations must not require its types; cast to ioredis's `Redis` for the rest of its API.
 */
export interface RedisClient {
  ping(): Promise<string>;
  get(key: string): Promise<string | null>;
  exists(...keys: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;
  disconnect(): void;
}
