import { existsSync } from 'node:fs';
import net from 'node:net';

/**
 * Optional peers of the suite. On a developer machine without them the tests that need them are
 * skipped with a visible notice; CI sets CITADEL_REQUIRE_SERVICES=1, and then a missing peer fails.
 */
const REQUIRED = process.env.CITADEL_REQUIRE_SERVICES === '1';

export const CHROMIUM_PATH = process.env.CITADEL_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const REDIS_URL = process.env.CITADEL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function unavailable(what: string): false {
  if (REQUIRED) throw new Error(`${what} is required (CITADEL_REQUIRE_SERVICES=1) but not available`);
  console.warn(`NOTICE: ${what} is not available: its tests are SKIPPED.`);
  return false;
}

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH) || unavailable(`Chromium (${CHROMIUM_PATH})`);
}

export async function redisAvailable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  const ok = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
  return ok || unavailable(`Redis (${REDIS_URL})`);
}
