import type { UserService } from './users.ts';
import type { Log } from './services.ts';

/** The Redis channel on which the processes of one deployment tell each other of changed users. */
export const USER_CHANGES_CHANNEL = 'citadel:user-changed';

/** The part of an ioredis client used here (ioredis is an optional peer dependency). */
interface PubSubClient {
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  disconnect(): void;
}

/**
 * Share changed users between the processes of a deployment through Redis pub/sub: a change made
 * here is published (awaited, so an admin's "disabled" answer comes after every process can know),
 * a change published elsewhere reaches this process's listeners. When Redis is unreachable the
 * change is logged and each process still rereads its users within a second
 * (service-tokens/recent-users.ts). Returns what stops listening.
 */
export async function shareUserChanges(
  publisher: PubSubClient,
  subscriber: PubSubClient,
  users: UserService,
  log: Log,
): Promise<() => void> {
  subscriber.on('error', (error) => log.error({ err: { message: error.message } }, 'redis subscriber error'));
  subscriber.on('message', (channel, message) => {
    if (channel !== USER_CHANGES_CHANNEL || !/^[1-9][0-9]{0,15}$/.test(message)) return;
    users.heard(Number(message));
  });
  await subscriber.subscribe(USER_CHANGES_CHANNEL);
  // After a lost connection the subscription is made again here, with its failure handled: the
  // client's own resubscription (off: see mount.ts) rejects unhandled when the connection drops
  // again meanwhile. Messages sent while it was down are missed; the one-second reread covers them.
  subscriber.on('ready', () => {
    subscriber.subscribe(USER_CHANGES_CHANNEL).catch((error: unknown) => {
      log.error(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'could not subscribe to user changes again (they reach this process within a second)',
      );
    });
  });
  users.shareChanges(async (userId) => {
    await publisher.publish(USER_CHANGES_CHANNEL, String(userId)).catch((error: unknown) => {
      log.error(
        { err: { message: error instanceof Error ? error.message : String(error) }, userId },
        'could not publish a user change (other processes see it within a second)',
      );
    });
  });
  return () => subscriber.disconnect();
}
