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
