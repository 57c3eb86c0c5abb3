// A minimal HTTP client for the benchmarks and the deploy's post-load check (keep-alive, bodies as strings, a
// deadline per request).
import http from 'node:http';

export type Reply = { status: number; body: string; ms: number };

export function makeAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}

export function call(
  agent: http.Agent,
  url: string,
  opts: { method: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const req = http.request(
      url,
      { method: opts.method, agent, headers, timeout: opts.timeoutMs ?? 120_000 },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${opts.method} ${url} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export function expectOk(r: Reply, what: string): Reply {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  return r;
}
