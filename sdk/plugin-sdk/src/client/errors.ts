/**
 * Two error types, so a caller can tell "the service answered no" (RoleLinkApiError, with the
 * spec's `statusCode` and `message`) from "the service could not be reached" (RoleLinkNetworkError).
 * An abort through the caller's AbortSignal is rethrown as the signal's own reason, never wrapped.
 */

export class RoleLinkApiError extends Error {
  override readonly name = 'RoleLinkApiError';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly method: string,
    readonly url: string,
    /** The parsed answer body (for example `details` of a validation error), or the raw text. */
    readonly body: unknown,
    /** `X-Request-Id` of the answer: quote it when asking the service's operators about a failure. */
    readonly requestId: string | null,
    /**
     * The list's current version (`ETag`) when the answer carried one: on a 412 (If-Match named a
     * version the list has left) it is the version to read the list at again.
     */
    readonly listVersion: string | null = null,
  ) {
    super(message);
  }
}

/**
 * A refusal's message with its first validation detail, e.g. `Validation error: body.3: "12" is not a
 * user ID…` (and how many more there are): the spec's bare `Validation error` names no field, and a
 * message is often all a log keeps. The whole `details` list stays in the error's `body`.
 */
export function withFirstDetail(message: string, details: unknown): string {
  if (!Array.isArray(details)) return message;
  const first: unknown = details[0];
  if (typeof first !== 'string' || first === '') return message;
  const more = details.length - 1;
  return `${message}: ${first}${more > 0 ? ` (and ${more} more)` : ''}`;
}

export class RoleLinkNetworkError extends Error {
  override readonly name = 'RoleLinkNetworkError';
  constructor(
    message: string,
    readonly method: string,
    readonly url: string,
    /** True when the per-call timeout ended the request (the service may still have done the work). */
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
