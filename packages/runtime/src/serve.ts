import http, { type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
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
  /**
   * How long drain() keeps listening after it marks the process draining (SHUTDOWN_DRAIN_MS): the time
   * load balancers need to see /readyz answer 503 and stop sending new connections. 0 closes at once.
   */
  drainMs?: number;
  /** Node's server options, e.g. the request and response classes the API's app builds (createApi's serverOptions). */
  serverOptions?: ServerOptions;
};

export type Serving = {
  server: Server;
  /** True from the moment drain() is called: /readyz answers 503 and every answer closes its connection. */
  readonly draining: boolean;
  /**
   * Graceful stop, safe to call twice: marks the process draining, keeps serving for `drainMs` (each
   * answer with `Connection: close`), then stops listening, closes idle keep-alive sockets and resolves
   * once every request in flight is answered and no connection is left.
   */
  drain(): Promise<void>;
};

/**
 * Starts an HTTP service the same way for every service. A taken port is one clear line and exit 1
 * instead of a stack trace. Keep-alive (65 s) outlasts the 60 s idle timeout of common load balancers,
 * so they never send a request on a socket Node has just closed.
 *
 * Draining needs no library (http-terminator, stoppable): Node 20's server.close() already closes the
 * sockets that are idle at that moment. What it does not do is close a keep-alive socket whose request
 * was in flight: that one stays open after its answer until the client leaves or the 65 s keep-alive
 * passes, so the process outlived its shutdown deadline. The ~30 lines below cover that gap: answers
 * sent while draining say `Connection: close` (Node then closes the socket after them), an answer whose
 * headers were already out closes its socket when it finishes, and the sockets left once every answer
 * is sent are idle by construction and closed.
 */
export function serve(app: RequestListener, opts: ServeOptions): Serving {
  const { logger, port, host } = opts;
  const inFlight = new InFlight();
  let draining: Promise<void> | null = null;

  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) {
      res.setHeader('Connection', 'close');
      return;
    }
    // Headers already sent said keep-alive; end the socket once this answer is out. Taken now: Node
    // detaches it from the response before our 'finish' listener runs.
    const socket = res.socket;
    res.once('finish', () => socket?.end());
  };
  const server = http.createServer(opts.serverOptions ?? {}, (req, res) => {
    inFlight.add(res);
    if (draining) res.setHeader('Connection', 'close');
    app(req, res);
  });
  server.on('error', (err: NodeJS.ErrnoException) => {
    logger.error(err.code === 'EADDRINUSE' ? `port ${port} is already in use (set ${opts.portVar})` : err.message);
    process.exit(1);
  });
  if (opts.requestTimeoutMs !== undefined) server.requestTimeout = opts.requestTimeoutMs;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.listen(port, host, () => logger.info(`${opts.name} listening`, { port }));

  const stop = async () => {
    const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    // A request may still arrive on an open socket meanwhile (each gets `Connection: close`): wait again.
    while (inFlight.size > 0)
      await Promise.all(inFlight.list().map((res) => new Promise((resolve) => res.once('close', resolve))));
    // Every request is answered: what is still open is idle (a client that did not hang up after
    // `Connection: close`, or a socket that never sent a request), so nothing is cut short.
    server.closeAllConnections();
    await closed;
  };

  return {
    server,
    get draining() {
      return draining !== null;
    },
    drain() {
      draining ??= (async () => {
        for (const res of inFlight.list()) closeAfter(res);
        const drainMs = opts.drainMs ?? 0;
        if (drainMs > 0) {
          logger.info('draining: still serving while load balancers take this process out', { drainMs });
          await new Promise((resolve) => setTimeout(resolve, drainMs));
        }
        await stop();
      })();
      return draining;
    },
  };
}

/**
 * The responses in flight, each in a slot of an array that is reused once its response closes. Not a
 * Set: adding and deleting each request's response in one long-lived Set made the API's young-generation
 * collections keep much of what it allocated (docs/benchmarks.md, "Finished requests kept through the
 * young generation"); a bare server that did the same kept as much, and
 * with slots as little as without. By all appearances a Set's table, once in the old generation and
 * then replaced by a rehash, still points at the responses it held, and the scavenger counts an
 * old-generation object's pointers as live until the next full collection.
 */
class InFlight {
  private readonly slots: (ServerResponse | undefined)[] = [];
  private readonly free: number[] = [];

  /** Every slot holds a response but the free ones. */
  get size(): number {
    return this.slots.length - this.free.length;
  }

  add(res: ServerResponse): void {
    const i = this.free.pop() ?? this.slots.length;
    this.slots[i] = res;
    res.once('close', () => {
      this.slots[i] = undefined;
      this.free.push(i);
    });
  }

  list(): ServerResponse[] {
    return this.slots.filter((res): res is ServerResponse => res !== undefined);
  }
}
