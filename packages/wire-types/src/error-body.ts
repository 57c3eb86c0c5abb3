/**
 * The error body of every User Management API refusal except the shrink hold (spec 7): `statusCode`
 * and `message`, plus `details` on validation errors, one `<field>: <message>` string per offending
 * path (docs/api.md "Validation errors").
 */
export type ErrorBody = {
  statusCode: number;
  message: string;
  details?: string[];
};

/** One problem placed next to the form field it belongs to. */
export type FieldError = { field: string; message: string };

/**
 * The same body as the service's own surfaces send it (dashboard, plugin broker, CLI): `errors` marks
 * form fields, `detail` says why a plugin call failed. The User Management API never sends either
 * (its `errors` key is the shrink hold's object), so plugin authors meet only `ErrorBody`.
 */
export type ServiceErrorBody = ErrorBody & { errors?: FieldError[]; detail?: string };
