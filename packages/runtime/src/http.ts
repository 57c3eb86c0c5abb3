import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { REQUEST_ID_PATTERN } from '@rolelink/contracts';
import { AppError, zodIssues, type ErrorBodyOptions, type ValidationIssue } from './app-error';
import type { Logger } from './logger';
import { DATABASE_RETRY_AFTER_S, fromDatabaseOutage } from './database-outage';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares Request in the global namespace Express: augmenting it takes one
  namespace Express {
    interface Request {
      id: string;
    }
  }
}

/**
 * Per-request work that never fails and never waits (the request id, the log line, the metrics): Express
 * middleware whose `next` may be left out, so a server that answers some requests without Express's
 * router (the API's link pipeline) runs the very same instances as a plain call.
 */
export type RequestObserver = (req: Request, res: Response, next?: NextFunction) => void;

/** Accepts a caller's X-Request-Id (bounded, printable) or mints one; echoed on every answer. */
export function requestId(): RequestObserver {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    req.id = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    next?.();
  };
}

type Part = 'params' | 'query' | 'body';
export type ParsedRequest<P extends Partial<Record<Part, z.ZodType>>> = {
  [K in keyof P]: P[K] extends z.ZodType ? z.infer<P[K]> : never;
};

/**
 * The one validate() middleware: parses the named parts with zod schemas from `contracts` and stores
 * the typed result on `res.locals.input`. Failures answer AppError.validation() (at most 5 issues per part).
 */
export function validate<P extends Partial<Record<Part, z.ZodType>>>(parts: P): RequestHandler {
  const parse = inputParser(parts);
  return (req, res, next) => {
    try {
      res.locals.input = parse(req);
    } catch (err) {
      return next(err);
    }
    next();
  };
}

/**
 * validate()'s parse as a function: the named parts of `source` parsed with their schemas, or the
 * AppError.validation() thrown (at most 5 issues per part).
 */
export function inputParser<P extends Partial<Record<Part, z.ZodType>>>(
  parts: P,
): (source: Partial<Record<Part, unknown>>) => ParsedRequest<P> {
  // Listed once: this runs on every request of its routes.
  const entries = Object.entries(parts) as [Part, z.ZodType][];
  return (source) => {
    const input: Record<string, unknown> = {};
    let issues: ValidationIssue[] | undefined;
    for (const [part, schema] of entries) {
      const result = schema.safeParse(source[part]);
      if (result.success) input[part] = result.data;
      else (issues ??= []).push(...zodIssues(result.error, part).slice(0, 5));
    }
    if (issues) throw AppError.validation(issues);
    return input as ParsedRequest<P>;
  };
}

export function input<P extends Partial<Record<Part, z.ZodType>>>(res: Response): ParsedRequest<P> {
  return res.locals.input as ParsedRequest<P>;
}

/** Wraps an async handler so a rejection reaches the error middleware (Express 5 does this too; explicit is clearer). */
export function handle(fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler {
  return (req, res, next) => {
    fn(req, res, next).catch(next);
  };
}

export function notFoundRoute(): RequestHandler {
  return (req, _res, next) => next(routeNotFound(req));
}

/** The 404 of a request no route takes. */
export function routeNotFound(req: Request): AppError {
  return new AppError(404, `Route not found: ${req.method} ${req.path}`, 'route_not_found');
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
  limit?: number;
}

/** Maps body-parser failures to the spec's error shape before the generic handler sees them. */
function fromBodyParser(err: BodyParserError): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return AppError.malformedJson();
    case 'entity.too.large':
      return new AppError(413, `Request body too large (limit ${err.limit ?? 'exceeded'} bytes)`, 'body_too_large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'Unsupported content encoding', 'unsupported_encoding');
    case 'request.aborted':
      return new AppError(400, 'Request aborted', 'aborted');
    default:
      // Any other body it could not read is its 400 without a type (and only "Bad Request" for a message):
      // a body whose bytes do not match its Content-Encoding, e.g. one that says gzip and is not. A client
      // error, not a 500.
      return err.status === 400 && err.expose === true
        ? new AppError(
            400,
            'Request body could not be read: check that it matches its Content-Encoding',
            'unreadable_body',
          )
        : null;
  }
}

/**
 * The one error middleware: every error answer is `AppError#toBody()` (the contracts' `ErrorBody`);
 * anything that is not an AppError is logged and answers a plain 500. `options` is the surface's:
 * the User Management API passes `{ fieldErrors: false }` (docs/api.md, "Errors").
 */
export function errorHandler(logger: Logger, options: ErrorBodyOptions = {}): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const appErr = err instanceof AppError ? err : (fromBodyParser(err as BodyParserError) ?? fromDatabaseOutage(err));
    if (res.headersSent) {
      logger.error('error after headers sent', { requestId: req.id, err });
      res.destroy();
      return;
    }
    if (appErr) {
      if (appErr.status >= 500)
        logger.error(appErr.message, {
          requestId: req.id,
          code: appErr.code,
          ...(appErr === err ? {} : { cause: (err as Error).message }),
        });
      if (appErr.code === 'database_unavailable') res.set('Retry-After', String(DATABASE_RETRY_AFTER_S));
      res.status(appErr.status).json(appErr.toBody(options));
      return;
    }
    logger.error('unhandled error', { requestId: req.id, err });
    res.status(500).json(new AppError(500, 'Internal server error').toBody(options));
  };
}
