import net from 'node:net';

/**
 * A TCP proxy the test controls, in front of a real server (PostgreSQL, MariaDB, Redis): `cut()`
 * drops every connection and turns new ones away (what a restart looks like from the client),
 * `restore()` lets them through again; `stall()` is a hung peer. The shared servers other test
 * files use stay up.
 */
export class TcpProxy {
  private server = net.createServer((socket) => this.accept(socket));
  private sockets = new Set<net.Socket>();
  private down = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private accept(client: net.Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** `url` (a database URL) with its host and port replaced by this proxy's. */
  via(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** A hung peer: connections stay open but nothing passes either way until `resume()`. */
  stall(): void {
    for (const socket of this.sockets) socket.pause();
  }

  resume(): void {
    for (const socket of this.sockets) socket.resume();
  }

  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
