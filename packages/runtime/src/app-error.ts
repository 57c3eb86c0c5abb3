/** One problem of a validation error: where (`body.3`, `params.guildId`, `config`) and what is wrong. */
export type ValidationIssue = { field: string; message: string };

import type { z } from 'zod';

/** The message every validation error answers with (spec 7). */
export const VALIDATION_MESSAGE = 'Validation error';

/**
 * The one error type of the service. Handlers and domain code throw it; the error middleware and the
 * CLI turn it into the spec's bodies (`{ statusCode, message }`), so nobody builds error JSON by hand.
 * `body` replaces the default body where the spec prescribes another shape (the 409 shrink hold).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = codeFor(status),
    readonly body?: Record<string, unknown>,
    /** Set by AppError.validation(): the problems one by one, for a caller that places them (the CLI). */
    readonly issues?: readonly ValidationIssue[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  static badRequest(message: string, code = 'bad_request'): AppError {
    return new AppError(400, message, code);
  }

  /**
   * The one validation error (docs/api.md, "Validation errors"): 400 `Validation error` with
   * `details: ["<field>: <message>", …]`. That string list is the shape the public API has always
   * answered and its OpenAPI document describes, so every surface uses it; the issues stay on the
   * error, structured, for callers that show them per field.
   */
  static validation(issues: readonly ValidationIssue[], code = 'validation'): AppError {
    const details = issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message));
    return new AppError(400, VALIDATION_MESSAGE, code, { statusCode: 400, message: VALIDATION_MESSAGE, details }, issues);
  }

  static notFound(message: string, code = 'not_found'): AppError {
    return new AppError(404, message, code);
  }

  static forbidden(message: string, code = 'forbidden'): AppError {
    return new AppError(403, message, code);
  }

  static unauthorized(message: string, code = 'unauthorized'): AppError {
    return new AppError(401, message, code);
  }

  static badGateway(message: string, code = 'bad_gateway'): AppError {
    return new AppError(502, message, code);
  }

  toBody(): Record<string, unknown> {
    return this.body ?? { statusCode: this.status, message: this.message };
  }
}

/** A zod failure as issues, each path under `prefix` (`params` gives `params.guildId`; no path gives `params`). */
export function zodIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.map((i) => ({ field: [prefix, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message }));
}

function codeFor(status: number): string {
  return status >= 500 ? 'internal' : 'error';
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
