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
  ) {
    super(message);
    this.name = 'AppError';
  }

  static badRequest(message: string, code = 'bad_request'): AppError {
    return new AppError(400, message, code);
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

function codeFor(status: number): string {
  return status >= 500 ? 'internal' : 'error';
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
