import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy in front of the real API that can answer instead of it, or drop the connection, for
 * the next requests matching a rule: how the SDK meets 429s, 5xx and network failures in its tests
 * while every answer that gets through is the service's own.
 */
export type Fault =
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'drop' }
  /** Forwarded, then the answer is thrown away and the socket dropped (the work was done). */
  | { kind: 'lose-answer' };

type Rule = { match: (req: IncomingMessage) => boolean; faults: Fault[] };

export type FaultyProxy = {
  url: string;
  /** Method and path of every request that reached the proxy, in order. */
  seen: string[];
  /** Highest number of requests matching `concurrencyOf` open at once. */
  peakConcurrency: number;
  concurrencyOf: (req: IncomingMessage) => boolean;
  inject(match: (req: IncomingMessage) => boolean, ...faults: Fault[]): void;
  close(): Promise<void>;
};

export async function startFaultyProxy(targetUrl: string): Promise<FaultyProxy> {
  const target = new URL(targetUrl);
  const rules: Rule[] = [];
  let open = 0;
  const proxy: FaultyProxy = {
    url: '',
    seen: [],
    peakConcurrency: 0,
    concurrencyOf: () => false,
    inject: (match, ...faults) => void rules.push({ match, faults }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const forward = (req: IncomingMessage, res: ServerResponse, loseAnswer: boolean) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (loseAnswer) {
          answer.resume();
          answer.once('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', () => res.socket?.destroy());
    req.pipe(upstream);
  };
  const server = http.createServer((req, res) => {
    proxy.seen.push(`${req.method} ${req.url}`);
    const counted = proxy.concurrencyOf(req);
    if (counted) {
      open++;
      proxy.peakConcurrency = Math.max(proxy.peakConcurrency, open);
      res.once('close', () => open--);
    }
    const rule = rules.find((r) => r.faults.length && r.match(req));
    const fault = rule?.faults.shift();
    if (!fault) return forward(req, res, false);
    if (fault.kind === 'lose-answer') return forward(req, res, true);
    req.resume();
    if (fault.kind === 'drop') return void req.once('end', () => res.socket?.destroy());
    res.writeHead(fault.status, { 'Content-Type': 'application/json', ...fault.headers });
    res.end(JSON.stringify(fault.body ?? { statusCode: fault.status, message: `injected ${fault.status}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
