import { backoffMs } from '@rolelink/wire-types/backoff';
import { RoleLinkApiError, RoleLinkNetworkError, withFirstDetail } from './errors';
import type { AbortSignalLike, FetchAnswer, FetchLike } from '../host-types';
import { parseRetryAfter, retryBackoff, sleep, type RetryOptions } from './retry';

/**
 * Which failures a call may be repeated after:
 * - `idempotent`: network errors, 5xx and 429 (reads, PUT, single adds and removals, chunks: repeating
 *   them changes nothing, chunk duplicates are removed at commit).
 * - `unprocessed`: only answers that prove nothing was done (429, a refused connection). A commit
 *   whose answer was lost may have replaced the list; repeating it would answer 404 for the closed
 *   session and hide the success.
 */
export type RetryPolicy = 'idempotent' | 'unprocessed';

export type HttpCall = {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  /** Serialised as JSON with `Content-Type: application/json`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** A real AbortSignal at run time (Node's); typed by its shape so the .d.ts need no Node types. */
  signal?: AbortSignalLike;
  /** Per attempt; the spec's server-side limits are 2 minutes for PUT and 30 for commit. */
  timeoutMs: number;
  retry: RetryPolicy;
};

export type HttpAnswer = {
  status: number;
  body: unknown;
  requestId: string | null;
  /** `ETag`: the list's version, on answers that read or write the list. */
  etag: string | null;
  /** `Idempotent-Replayed: true`: the service's stored first answer to this Idempotency-Key. */
  replayed: boolean;
};

export type HttpClientOptions = {
  baseUrl: string;
  token: string;
  retry: RetryOptions;
  userAgent: string;
  fetch: FetchLike;
};

const CONNECTION_REFUSED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function errorCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** The 409 shrink hold (spec 4.1 rule 6), as opposed to the §7-shaped 409 of an Idempotency-Key still running. */
export function isShrinkHold(body: unknown): boolean {
  return (body as { errors?: { error?: unknown } } | null)?.errors?.error === 'confirm_required';
}

/**
 * One HTTP exchange with retries. Answers below 400 and the 409 shrink hold are returned (the
 * caller reads them); every other 4xx/5xx becomes a RoleLinkApiError once retries are spent. The
 * headers of a call (its Idempotency-Key among them) are the same on every attempt, so a retried write
 * with a key is answered from the service's record of the first one instead of running twice.
 */
export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  async send(call: HttpCall): Promise<HttpAnswer> {
    const url = this.options.baseUrl.replace(/\/+$/, '') + call.path;
    const { retry } = this.options;
    for (let attempt = 0; ; attempt++) {
      (call.signal as AbortSignal | undefined)?.throwIfAborted();
      const outcome = await this.attempt(url, call);
      const last = attempt >= retry.retries;
      if ('answer' in outcome) {
        const { answer } = outcome;
        if (answer.status < 400 || (answer.status === 409 && isShrinkHold(answer.body))) return answer;
        const wait = this.waitFor(answer, outcome.retryAfter, call.retry, attempt);
        if (last || wait === null) throw apiError(answer, call.method, url);
        await sleep(wait, call.signal);
      } else {
        const { error } = outcome;
        const retryable =
          !error.timedOut && (call.retry === 'idempotent' || CONNECTION_REFUSED.has(errorCode(error.cause) ?? ''));
        if (last || !retryable) throw error;
        await sleep(backoffMs(retryBackoff(retry), attempt), call.signal);
      }
    }
  }

  private waitFor(answer: HttpAnswer, retryAfter: number | null, policy: RetryPolicy, attempt: number): number | null {
    // A 409 that is not a hold: the first request with this Idempotency-Key is still running; its answer
    // will be replayed once it has one, so waiting and asking again is safe whatever the policy.
    const throttled = answer.status === 429 || answer.status === 503 || answer.status === 409;
    if (!throttled && !(policy === 'idempotent' && answer.status >= 500)) return null;
    if (retryAfter !== null) return retryAfter <= this.options.retry.maxRetryAfterMs ? retryAfter : null;
    return backoffMs(retryBackoff(this.options.retry), attempt);
  }

  private async attempt(
    url: string,
    call: HttpCall,
  ): Promise<{ answer: HttpAnswer; retryAfter: number | null } | { error: RoleLinkNetworkError }> {
    const timeout = AbortSignal.timeout(call.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal as AbortSignal, timeout]) : timeout;
    const headers: Record<string, string> = {
      Authorization: `Token ${this.options.token}`,
      Accept: 'application/json',
      'User-Agent': this.options.userAgent,
      ...call.headers,
    };
    let payload: string | undefined;
    if (call.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(call.body);
    }
    try {
      const init: RequestInit = { method: call.method, headers, body: payload, signal, redirect: 'error' };
      const res = await (this.options.fetch as (input: string, init: RequestInit) => Promise<FetchAnswer>)(url, init);
      const text = await res.text();
      const answer: HttpAnswer = {
        status: res.status,
        body: parseBody(text),
        requestId: res.headers.get('x-request-id'),
        etag: res.headers.get('etag'),
        replayed: res.headers.get('idempotent-replayed') === 'true',
      };
      return { answer, retryAfter: parseRetryAfter(res.headers.get('retry-after')) };
    } catch (err) {
      if (call.signal?.aborted) throw call.signal.reason;
      const timedOut = timeout.aborted;
      const message = timedOut
        ? `${call.method} ${url}: no answer within ${call.timeoutMs} ms`
        : `${call.method} ${url}: ${describe(err)}`;
      return { error: new RoleLinkNetworkError(message, call.method, url, timedOut, { cause: err }) };
    }
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(err: unknown): string {
  const code = errorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message} (${code})` : message;
}

function apiError(answer: HttpAnswer, method: string, url: string): RoleLinkApiError {
  const body = answer.body as { message?: unknown; details?: unknown } | null;
  const message = withFirstDetail(
    typeof body?.message === 'string' ? body.message : `HTTP ${answer.status}`,
    body?.details,
  );
  return new RoleLinkApiError(answer.status, message, method, url, answer.body, answer.requestId, answer.etag);
}
