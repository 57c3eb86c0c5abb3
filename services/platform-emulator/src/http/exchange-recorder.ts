import type { RequestHandler } from 'express';

/**
 * One platform API call as it went over the wire: what the client sent (path with its query, headers,
 * the parsed body of a JSON or form route) and what the emulator answered. Conformance tests check both
 * sides against the platform's published description.
 */
export type PlatformExchange = {
  method: string;
  /** The whole path and query the client asked for, `/api/v10` included, as the client wrote it. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as the route's parser read it; undefined for a route without a body. */
  body: unknown;
  status: number;
  contentType: string | undefined;
  /** The answer's text, empty for a 204. */
  responseText: string;
};

export type ExchangeListener = (exchange: PlatformExchange) => void;

/**
 * Captures each call under the API's mount point for the listeners, when there are any (no cost
 * otherwise): the answer's bytes are collected as they are written, the request's body once a route's
 * parser has read it, and the exchange is reported when the answer is finished.
 */
export function recordExchanges(listeners: ReadonlySet<ExchangeListener>): RequestHandler {
  return (req, res, next) => {
    if (listeners.size === 0) return next();
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (Buffer.isBuffer(chunk)) chunks.push(chunk);
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      else if (typeof chunk === 'string')
        chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (end as (...a: unknown[]) => typeof res)(chunk, ...rest);
    }) as typeof res.end;
    res.once('finish', () => {
      const exchange: PlatformExchange = {
        method: req.method,
        url: req.originalUrl,
        headers: { ...req.headers },
        body: req.body as unknown,
        status: res.statusCode,
        contentType: res.getHeader('content-type')?.toString(),
        responseText: Buffer.concat(chunks).toString('utf8'),
      };
      for (const listener of listeners) listener(exchange);
    });
    next();
  };
}
