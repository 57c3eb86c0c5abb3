import type { z } from 'zod';
import type { ServiceErrorBody as ErrorBody, ShrinkBody } from '@rolelink/contracts';

/** One problem of a validation error: where (`body.3`, `params.guildId`, `config`) and what is wrong. */
export type ValidationIssue = { field: string; message: string };

/** The message every validation error answers with (spec 7). */
export const VALIDATION_MESSAGE = 'Validation error';

/** What a factory adds to status, message and code; the serializer (`toBody`) turns it into the body. */
type Extras = {
  details?: readonly string[];
  issues?: readonly ValidationIssue[];
  detail?: string;
  prescribed?: PrescribedBody;
};

/** A whole body that another specification fixes (see `AppError.prescribed`). */
export type PrescribedBody = ShrinkBody | object;

/** How a surface answers: the User Management API leaves `errors` out (its `errors` is the shrink hold's object). */
export type ErrorBodyOptions = { fieldErrors?: boolean };

/**
 * The one error type of the service. Handlers and domain code throw it; `toBody()` is the one serializer
 * of error bodies (`ErrorBody` in contracts), used by the error middleware, the readiness route and the
 * CLI, so nobody builds error JSON by hand. `new AppError(status, message, code)` makes a plain error; a
 * body with more than `statusCode` and `message` comes only from a factory below (docs/api.md, "Errors").
 */
export class AppError extends Error {
  /** Validation errors: `<field>: <message>` strings, the field a path under its request part. */
  readonly details?: readonly string[];
  /** The problems one by one, each with the form field it belongs to (body answers: `errors`). */
  readonly issues?: readonly ValidationIssue[];
  /** Why a plugin call failed (502s shown to the admin). */
  readonly detail?: string;
  /** A body another specification fixes, sent as it is. */
  readonly prescribed?: PrescribedBody;

  constructor(
    readonly status: number,
    message: string,
    readonly code: string = codeFor(status),
    extras: Extras = {},
  ) {
    super(message);
    this.name = 'AppError';
    Object.assign(this, extras);
  }

  static badRequest(message: string, code = 'bad_request'): AppError {
    return new AppError(400, message, code);
  }

  /**
   * The one validation error: 400 `Validation error` with `details: ["<field>: <message>", …]` (the
   * public API's documented form) and the same problems as `errors: [{ field, message }]` where a form
   * shows them: a request body's fields are the form's, so `body.plugin_url` is field `plugin_url` there.
   */
  static validation(issues: readonly ValidationIssue[], code = 'validation'): AppError {
    const details = issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message));
    const formIssues = issues.map((i) => ({ field: i.field.replace(/^body\./, ''), message: i.message }));
    return new AppError(400, VALIDATION_MESSAGE, code, { details, issues: formIssues });
  }

  /** A request body that is not JSON: express.json's failure (http.ts) and the API's own body readers answer the same. */
  static malformedJson(): AppError {
    return AppError.validation([{ field: 'body', message: 'malformed JSON' }], 'malformed_json');
  }

  /** A refusal whose problems belong next to form fields (a plugin URL, a config the form's rules reject). */
  static fields(status: number, message: string, code: string, issues: readonly ValidationIssue[]): AppError {
    return new AppError(status, message, code, { issues });
  }

  /** A refusal about one form field, its message shown beside it. */
  static field(status: number, field: string, message: string, code: string): AppError {
    return AppError.fields(status, message, code, [{ field, message }]);
  }

  /** A failed plugin call (spec 7's 502s), with what went wrong for the admin. */
  static pluginFailure(status: number, message: string, code: string, detail: string): AppError {
    return new AppError(status, message, code, { detail });
  }

  /** The 409 large-removal hold (spec 4.1 rule 6): its body is the hold, not the error body. */
  static shrinkHold(hold: ShrinkBody): AppError {
    return AppError.prescribed(409, hold.errors.message, hold.errors.code, hold);
  }

  /**
   * An answer whose whole body another specification fixes: the shrink hold (spec 4.1), and the chat
   * platform's own error JSON in its emulator. Nothing else: our refusals use the factories above.
   */
  static prescribed(status: number, message: string, code: string, body: PrescribedBody): AppError {
    return new AppError(status, message, code, { prescribed: body });
  }

  /** The error another service answered (status, its code, its body), rebuilt so it serializes the same here. */
  static fromBody(status: number, code: string, body: ErrorBody): AppError {
    const { details, errors, detail } = body;
    return new AppError(status, body.message, code, {
      ...(details ? { details } : {}),
      ...(errors ? { issues: errors } : {}),
      ...(detail !== undefined ? { detail } : {}),
    });
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

  /** The one serializer of error bodies (`ErrorBody`, or the shrink hold's body). */
  toBody(options: ErrorBodyOptions = {}): ErrorBody | PrescribedBody {
    if (this.prescribed) return this.prescribed;
    return {
      statusCode: this.status,
      message: this.message,
      ...(this.details ? { details: [...this.details] } : {}),
      ...(this.issues && options.fieldErrors !== false ? { errors: [...this.issues] } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
    };
  }
}

/** A zod failure as issues, each path under `prefix` (`params` gives `params.guildId`; no path gives `params`). */
export function zodIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.map((i) => ({
    field: [prefix, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.message,
  }));
}

function codeFor(status: number): string {
  return status >= 500 ? 'internal' : 'error';
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
