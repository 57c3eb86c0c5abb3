import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApiHarness, type ApiHarness } from '../../../test/support/api';

/** The real API (services/api over its own PostgreSQL database and queue prefix) on a local port, for HTTP clients. */
export async function startListeningApi(): Promise<ApiHarness & { url: string }> {
  const harness = await startApiHarness();
  const server = http.createServer(harness.serverOptions, harness.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...harness,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await harness.close();
    },
  };
}
