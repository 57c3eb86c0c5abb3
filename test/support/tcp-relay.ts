import net from 'node:net';

export type TcpRelay = {
  port: number;
  /** `url` with its host and port replaced by the relay's. */
  via(url: string): string;
  /**
   * The server goes away, as a stopped one does for its clients: every relayed connection is reset and
   * new ones are refused (the relay's port is closed).
   */
  stop(): Promise<void>;
};

/**
 * A TCP relay to a server every test shares (PostgreSQL on 127.0.0.1:5432), so a test can take that
 * server away from the process under test without stopping it for everyone else (COMMON rules: never stop
 * the shared servers). Each client socket is paired with a fresh connection upstream; either side's end
 * ends both.
 */
export async function tcpRelay(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<TcpRelay> {
  const live = new Set<net.Socket>();
  const server = net.createServer((client) => relaySocket(client, upstreamPort, upstreamHost, live));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of live) s.destroy();
      await closed;
    },
  };
}

/**
 * Pairs `client` with a fresh connection to the upstream server, both kept in `live` (to be destroyed
 * when the relay stops); either side's end ends both, so a server that dies looks to the client as it
 * would without the relay.
 */
export function relaySocket(
  client: net.Socket,
  upstreamPort: number,
  upstreamHost: string,
  live: Set<net.Socket>,
): void {
  const upstream = net.connect(upstreamPort, upstreamHost);
  live.add(client).add(upstream);
  const end = () => {
    client.destroy();
    upstream.destroy();
    live.delete(client);
    live.delete(upstream);
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
  client.pipe(upstream);
  upstream.pipe(client);
}
