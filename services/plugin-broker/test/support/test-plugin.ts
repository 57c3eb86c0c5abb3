import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { generate } from 'selfsigned';

/** Names and addresses the test certificate is valid for. */
export const TEST_PLUGIN_NAMES = ['localhost', 'plugin.test', 'rebind.test'];

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
export type Handler = (req: RecordedRequest, res: ServerResponse) => void;

export type TestPlugin = {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** PEM of the self-signed certificate, to trust in the client under test. */
  ca: string;
  requests: RecordedRequest[];
  /** Answers `METHOD /path` (e.g. `GET /config`); unknown routes answer 404. */
  on(route: string, handler: Handler): void;
  /** Resolves with the next request to `route`. */
  next(route: string): Promise<RecordedRequest>;
  close(): Promise<void>;
};

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * A real HTTPS plugin on loopback with a freshly generated self-signed certificate. `app`: a whole
 * plugin (e.g. the SDK's pluginMiddleware) answering every request itself, in place of `on` handlers.
 */
export async function startTestPlugin(app?: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestPlugin> {
  const pems = await generate([{ name: 'commonName', value: 'plugin.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...TEST_PLUGIN_NAMES.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  const handlers = new Map<string, Handler>();
  const waiters = new Map<string, ((r: RecordedRequest) => void)[]>();
  const requests: RecordedRequest[] = [];

  const server = https.createServer(
    { key: pems.private, cert: pems.cert },
    (req: IncomingMessage, res: ServerResponse) => {
      if (app) return app(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const recorded = {
          method: req.method ?? 'GET',
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        requests.push(recorded);
        const route = `${recorded.method} ${path}`;
        for (const w of waiters.get(route)?.splice(0) ?? []) w(recorded);
        const handler = handlers.get(route);
        if (handler) handler(recorded, res);
        else json(res, 404, { error: 'not found' });
      });
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    ca: pems.cert,
    requests,
    on: (route, handler) => void handlers.set(route, handler),
    next: (route) => new Promise((resolve) => waiters.set(route, [...(waiters.get(route) ?? []), resolve])),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
