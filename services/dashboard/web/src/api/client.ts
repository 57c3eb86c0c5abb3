import { errorBody, type FieldError } from '@rolelink/contracts';

/**
 * The one place the web app talks HTTP. Every call is same-origin with the session cookie; every
 * state-changing call carries the CSRF token from GET /dashboard-api/me and a JSON content type.
 * A 401 from any call means the session is gone: the registered handler shows the sign-in screen.
 */

/**
 * An error answer, read with the one error schema (`errorBody`, packages/contracts/src/error-body.ts), or a
 * network failure (status 0). Every part of the answer is kept, for the screen to show: `fieldErrors`
 * (the form's `errors`), `details` (a validation error's `<field>: <message>` lines) and `detail` (why a
 * plugin call failed, on a 502).
 */
export class ApiError extends Error {
  readonly fieldErrors: readonly FieldError[];
  readonly details: readonly string[];
  readonly detail: string | undefined;

  constructor(
    readonly status: number,
    message: string,
    parts: { fieldErrors?: readonly FieldError[]; details?: readonly string[]; detail?: string | undefined } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.fieldErrors = parts.fieldErrors ?? [];
    this.details = parts.details ?? [];
    this.detail = parts.detail;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let csrfToken: string | null = null;
let onUnauthorized: () => void = () => {};

/** Set from GET /me; cleared on sign-out. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The session provider registers how a 401 is shown (once, at start). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined;
  const text = await res.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorFrom(res: Response, body: unknown): ApiError {
  const parsed = errorBody.safeParse(body);
  if (parsed.success) {
    const { message, errors, details, detail } = parsed.data;
    return new ApiError(res.status, message, { fieldErrors: errors, details, detail });
  }
  // Not the service's error body (a proxy's HTML page, an empty 504): the status is all there is to say.
  return new ApiError(res.status, `Request failed (${[res.status, res.statusText].filter(Boolean).join(' ')})`);
}

export type RequestOptions = { body?: unknown; signal?: AbortSignal | undefined };

export async function request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    if (csrfToken) headers['X-CSRF-Token'] = csrfToken;
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The dashboard server could not be reached. Check your connection and try again.');
  }
  const body = await readBody(res);
  if (res.status === 401) {
    onUnauthorized();
    throw errorFrom(res, body);
  }
  if (!res.ok) throw errorFrom(res, body);
  return body as T;
}
