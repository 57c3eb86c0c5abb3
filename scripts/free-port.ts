import net from 'node:net';

/** Listens on a port the OS picks; the server is still open, so the OS cannot hand that port out again. */
function holdPort(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const release = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A port nothing listens on right now (the OS picks it). Shared by the stack, tests and benchmarks. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `n` distinct free ports. Asked one after the other, freePort() can get the same port twice: each is
 * released before the next is picked (a local stack once got one port for two services). Here every port
 * stays held until all are picked.
 */
export async function freePorts(n: number): Promise<number[]> {
  const held: net.Server[] = [];
  try {
    for (let i = 0; i < n; i++) held.push(await holdPort());
    return held.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(held.map(release));
  }
}
