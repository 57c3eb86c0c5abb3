import http from 'node:http';
import https from 'node:https';

/**
 * One call to a plugin as the service makes it (spec 4.2): headers exactly as given, no redirects
 * followed, a timeout, and the body read up to a cap. node:https rather than fetch so a developer's
 * self-signed certificate can be trusted with --ca for this command only.
 */
export type PluginAnswer = { status: number; headers: http.IncomingHttpHeaders; text: string; overCap: boolean; ms: number };

export type PluginCall = { method: string; url: string; headers?: Record<string, string>; body?: unknown; timeoutMs: number; maxBytes: number; ca?: string };

export function callPlugin(call: PluginCall): Promise<PluginAnswer> {
  const url = new URL(call.url);
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers: Record<string, string> = { 'User-Agent': 'Service/1.0', ...call.headers };
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const started = Date.now();
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: call.method, headers, timeout: call.timeoutMs, ...(call.ca ? { ca: call.ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let overCap = false;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > call.maxBytes) {
          overCap = true;
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), overCap, ms: Date.now() - started });
      res.on('end', done);
      res.on('close', () => overCap && done());
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${call.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
