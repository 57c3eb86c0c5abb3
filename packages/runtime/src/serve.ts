import http, { type RequestListener, type Server } from 'node:http';
import type { Logger } from './logger';

export type ServeOptions = {
  /** Names the service in its log lines. */
  name: string;
  port: number;
  host: string;
  /** The environment variable that sets the port, named in the error when the port is taken. */
  portVar: string;
  logger: Logger;
  /** Longest a request may take (Node's default is 5 minutes); the API's commits need more. */
  requestTimeoutMs?: number;
};

export type Serving = {
  server: Server;
  /** Stops accepting and resolves when the requests in flight are answered (Node 20 closes idle keep-alive sockets at once). */
  stop(): Promise<void>;
};

/**
 * Starts an HTTP service the same way for every service. A taken port is one clear line and exit 1
 * instead of a stack trace. Keep-alive (65 s) outlasts the 60 s idle timeout of common load balancers,
 * so they never send a request on a socket Node has just closed.
 */
export function serve(app: RequestListener, opts: ServeOptions): Serving {
  const { logger, port, host } = opts;
  const server = http.createServer(app);
  server.on('error', (err: NodeJS.ErrnoException) => {
    logger.error(err.code === 'EADDRINUSE' ? `port ${port} is already in use (set ${opts.portVar})` : err.message);
    process.exit(1);
  });
  if (opts.requestTimeoutMs !== undefined) server.requestTimeout = opts.requestTimeoutMs;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.listen(port, host, () => logger.info(`${opts.name} listening`, { port }));
  return {
    server,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
