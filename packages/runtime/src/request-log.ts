import type { Response } from 'express';
import type { RequestObserver } from './http';
import type { Logger } from './logger';
import { trackRoute } from './route-template';

/** Probes are scraped every few seconds: at info they would bury the requests operators look for. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** Extra fields of one request's log line; values are identifiers, never secrets. */
export type RequestLogFields = Record<string, string | number | boolean | undefined>;

/** Adds fields to this request's log line, e.g. the API's authenticated link id. */
export function addRequestLogFields(res: Response, fields: RequestLogFields): void {
  const own = res.locals.requestLog as RequestLogFields | undefined;
  // The request's own object, filled in place: a copy per call was garbage on every authenticated request.
  if (own) Object.assign(own, fields);
  else res.locals.requestLog = { ...fields };
}

/**
 * One JSON line per request once it is answered: `method`, `route` (the template, never the URL),
 * `status`, `duration_ms`, `requestId`, and the fields handlers added with addRequestLogFields. The URL,
 * query string and headers are left out on purpose: tokens travel there (`Authorization`, `rl_token`).
 * Levels: probes at debug, 5xx at warn (the error middleware logs the error itself), the rest at info.
 * A request whose client went away before the answer was sent carries `aborted: true`.
 */
export function requestLog(logger: Logger): RequestObserver {
  return (req, res, next) => {
    const started = performance.now();
    const routeOf = trackRoute(req);
    // 'close' alone: Node emits it for every response, after 'finish' when the answer was sent and on its
    // own when the client left first, so one listener serves both (a second 'finish' listener cost every
    // request an emitter wrapper and its removal).
    res.once('close', () => {
      const route = routeOf();
      const status = res.statusCode;
      const level = PROBE_ROUTES.has(route) ? 'debug' : status >= 500 ? 'warn' : 'info';
      // Below LOG_LEVEL winston would still build, redact and format the line before dropping it.
      if (!logger.isLevelEnabled(level)) return;
      logger.log(level, 'http request', {
        ...(res.locals.requestLog as RequestLogFields | undefined),
        requestId: req.id,
        method: req.method,
        route,
        status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    next?.();
  };
}
