import type { IncomingHttpHeaders } from 'node:http';
import got from 'got';
import { BlockedAddressError, PluginCallFailure } from './failure';
import { GuardedAgent, type GuardedAgentOptions } from './guarded-agent';

/** Plugin response bodies are read as a stream and cut here (spec 4.2, 8.6). */
export const MAX_PLUGIN_BODY_BYTES = 50 * 1024;
export const USER_AGENT = 'Service/1.0';

export type PluginRequest = {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** The link's raw API token, sent as `Authorization: Token …`; omitted on GET /health. */
  token?: string;
  json?: unknown;
  /** A JSON body already serialised (signed events: the signature covers these exact bytes); not with `json`. */
  rawJson?: string;
  /** Extra request headers (the Standard Webhooks headers of POST /events). */
  headers?: Record<string, string>;
  /** Sends `Accept: application/json` (GET /config). */
  accept?: boolean;
  timeoutMs: number;
  /** Overrides the client's body cap for this call (`rolelink plugin check` reads an iframe page, up to 5 MB). */
  maxBodyBytes?: number;
};

export type PluginResponse = {
  status: number;
  body: Buffer;
  /** Response headers (`rolelink plugin check` judges an iframe page's framing headers). */
  headers: IncomingHttpHeaders;
  /** The body passed the cap (MAX_PLUGIN_BODY_BYTES by default): reading stopped and the connection was closed. */
  truncated: boolean;
  durationMs: number;
};

/**
 * The only way out to plugins, for the broker and for `rolelink plugin check` (which must judge a plugin
 * by the calls the broker really makes): got over a GuardedAgent, redirects refused (a 3xx is a failure,
 * never followed), no retries, no decompression (so no `Accept-Encoding` beyond the headers of spec 4.2
 * and no decompression bomb), a hard deadline covering connect, headers and body, and the body capped.
 * Any HTTP status resolves; only "no usable answer" rejects, with a PluginCallFailure.
 */
export class PluginHttp {
  private readonly agent: GuardedAgent;
  private readonly maxBodyBytes: number;

  constructor(options: GuardedAgentOptions & { maxBodyBytes?: number }) {
    this.agent = new GuardedAgent(options);
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_PLUGIN_BODY_BYTES;
  }

  request(req: PluginRequest): Promise<PluginResponse> {
    if (!req.url.startsWith('https://'))
      return Promise.reject(new PluginCallFailure('blocked', 'plugin URL must use HTTPS'));
    const headers: Record<string, string> = { ...req.headers, 'user-agent': USER_AGENT };
    if (req.token !== undefined) headers.authorization = `Token ${req.token}`;
    if (req.json !== undefined || req.rawJson !== undefined) headers['content-type'] = 'application/json';
    if (req.accept) headers.accept = 'application/json';
    const started = performance.now();
    const maxBodyBytes = req.maxBodyBytes ?? this.maxBodyBytes;

    return new Promise<PluginResponse>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const stream = got.stream(req.url, {
        method: req.method,
        headers,
        ...(req.rawJson !== undefined
          ? { body: req.rawJson }
          : req.json !== undefined
            ? { body: JSON.stringify(req.json) }
            : {}),
        agent: { https: this.agent },
        followRedirect: false,
        decompress: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        http2: false,
      });
      const timer = setTimeout(() => {
        finish(() => reject(new PluginCallFailure('timeout', `plugin did not answer within ${req.timeoutMs} ms`)));
        stream.destroy();
      }, req.timeoutMs);

      let status = 0;
      let responseHeaders: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean): void =>
        finish(() =>
          resolve({
            status,
            headers: responseHeaders,
            body: Buffer.concat(chunks),
            truncated,
            durationMs: performance.now() - started,
          }),
        );

      stream.on('response', (res: { statusCode: number; headers: IncomingHttpHeaders }) => {
        status = res.statusCode;
        responseHeaders = res.headers;
        if (status >= 300 && status < 400) {
          finish(() => reject(new PluginCallFailure('redirect', `plugin answered ${status} (redirects are refused)`)));
          stream.destroy();
        }
      });
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > maxBodyBytes) {
          chunks.push(chunk.subarray(0, chunk.length - (size - maxBodyBytes)));
          done(true);
          stream.destroy();
        } else chunks.push(chunk);
      });
      stream.on('end', () => done(false));
      stream.on('error', (err: Error & { code?: string }) => finish(() => reject(classify(err))));
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function classify(err: Error & { code?: string }): PluginCallFailure {
  if (err instanceof BlockedAddressError || err.code === 'ERR_PLUGIN_ADDRESS_BLOCKED') {
    return new PluginCallFailure('blocked', err.message);
  }
  if (err.code === 'ETIMEDOUT') return new PluginCallFailure('timeout', err.message, err.code);
  return new PluginCallFailure('network', `${err.code ?? err.name}: ${err.message}`.slice(0, 300), err.code);
}
