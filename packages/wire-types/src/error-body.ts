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
