import type { FieldError } from '@rolelink/contracts';

/**
 * The one place the web app talks HTTP. Every call is same-origin with the session cookie; every
 * state-changing call carries the CSRF token from GET /dashboard-api/me and a JSON content type.
 * A 401 from any call means the session is gone: the registered handler shows the sign-in screen.
 */

/** An error answer `{ statusCode, message, errors? }`, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
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

function isFieldErrors(value: unknown): value is FieldError[] {
  return Array.isArray(value) && value.every((e) => typeof e === 'object' && e !== null && typeof (e as FieldError).field === 'string' && typeof (e as FieldError).message === 'string');
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
  if (typeof body === 'object' && body !== null) {
    const b = body as { message?: unknown; errors?: unknown };
    const message = typeof b.message === 'string' && b.message !== '' ? b.message : `Request failed (${res.status})`;
    return new ApiError(res.status, message, isFieldErrors(b.errors) ? b.errors : []);
  }
  return new ApiError(res.status, `Request failed (${res.status} ${res.statusText})`.trim());
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
