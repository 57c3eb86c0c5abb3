import net from 'node:net';
import { relaySocket } from './tcp-relay';

export type RedisGate = {
  /** The gate's URL: give it to the process under test instead of Redis's own. */
  url: string;
  /** Resolves when the first client has connected; its bytes are held, none reached Redis. */
  firstClient: Promise<void>;
  /** From now on every connection, the held one included, is relayed to Redis (or refused while Redis is down). */
  open(): void;
  close(): Promise<void>;
};

/**
 * A TCP relay in front of a test's own Redis that holds the first connection until the test opens it. It
 * makes "Redis dies while the process is starting" deterministic: with the first connection held, the
 * process cannot have finished any Redis work of its start-up when the test kills Redis, however loaded
 * the machine (polling Redis for the first client raced a worker that finished its start-up in between).
 * Open, each client socket is relayed as tcp-relay.ts relays one (`relaySocket`).
 */
export async function redisGate(redisPort: number): Promise<RedisGate> {
  let opened = false;
  const held: net.Socket[] = [];
  const live = new Set<net.Socket>();
  let firstSeen!: () => void;
  const firstClient = new Promise<void>((resolve) => (firstSeen = resolve));

  const relay = (client: net.Socket): void => relaySocket(client, redisPort, '127.0.0.1', live);

  const server = net.createServer((client) => {
    live.add(client);
    if (opened) return relay(client);
    client.pause(); // its bytes wait in the socket until open()
    held.push(client);
    firstSeen();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    url: `redis://127.0.0.1:${port}`,
    firstClient,
    open() {
      opened = true;
      for (const client of held.splice(0)) {
        relay(client);
        client.resume();
      }
    },
    async close() {
      for (const s of live) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
