import { RoleLinkApiError } from './errors';
import { randomUUID } from 'node:crypto';
import type { FetchLike } from '../host-types';
import { HttpClient, type HttpAnswer, type HttpCall } from './http';
import { replaceUsers, type ReplaceDryRun, type ReplaceOptions, type ReplaceOutcome } from './replace-users';
import { DEFAULT_RETRY, type RetryOptions } from './retry';
import { checkUserId, checkUserIds } from './user-id';
import type {
  AddUserOptions,
  CallOptions,
  DryRunResult,
  IdempotentOptions,
  ListMeta,
  ShrinkBody,
  UploadProgress,
  WholeListOptions,
  WholeListWriter,
  WriteOutcome,
} from './types';
import type {
  ChunkAcceptedBody,
  DataBody,
  DryRunBody,
  UploadCancelledBody,
  UploadCreatedBody,
  UserAddedBody,
  UserCountBody,
  UserExistsBody,
  UserRemovedBody,
  UsersListBody,
} from '@rolelink/wire-types';

export type RoleLinkClientOptions = {
  /**
   * The service's origin, where the User Management API answers, e.g. `https://rolelink.example.com`:
   * scheme, host and port only. The client adds `/api/role-link/<guildId>/<roleId>/users` itself.
   */
  baseUrl: string;
  /** The link's API token, as received in `Authorization: Token …` of POST /register. */
  token: string;
  guildId: string;
  roleId: string;
  retry?: Partial<RetryOptions>;
  /** A fetch of your own (a proxy agent, instrumentation); the global one by default. */
  fetch?: FetchLike;
  userAgent?: string;
};

/**
 * `baseUrl` as the origin the client puts its paths under; a URL with a path (most often the API's own
 * `/api/role-link`, which the client would then send twice and get 404s for every call), a query, a
 * fragment or credentials is refused at construction, with the origin it should have been.
 */
export function serviceOrigin(baseUrl: string): string {
  const example = 'e.g. "https://rolelink.example.com"';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `baseUrl must be the Role Link service's origin, an absolute http(s) URL (${example}); got ${JSON.stringify(baseUrl)}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`baseUrl must be an http(s) URL (${example}); got ${JSON.stringify(baseUrl)}`);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new TypeError(
      `baseUrl must be the Role Link service's origin without a path, here ${JSON.stringify(url.origin)}; got ` +
        `${JSON.stringify(baseUrl)}. The client adds /api/role-link/<guildId>/<roleId>/users itself.`,
    );
  return url.origin;
}

/** Header that confirms a held change (spec 4.1 rule 6). */
export const CONFIRM_HEADER = 'X-RoleLink-Confirm';

// Per attempt. The service allows PUT 2 minutes and commit 30 (spec 8 rule 5); a little more here so
// the service's own answer arrives rather than our timeout.
const TIMEOUT_MS = { short: 30_000, put: 130_000, chunk: 130_000, commit: 31 * 60_000 } as const;

const enc = encodeURIComponent;

/**
 * The User Management API (spec 4.1) for one role link: a token is scoped to exactly one link, so a
 * client is too. Every call takes an AbortSignal; failures are RoleLinkApiError (the service said no)
 * or RoleLinkNetworkError (it could not be reached after retries).
 */
export class RoleLinkClient implements WholeListWriter {
  private readonly http: HttpClient;
  private readonly base: string;

  /** Throws a TypeError naming what `baseUrl` should be when it is not the service's origin (serviceOrigin). */
  constructor(options: RoleLinkClientOptions) {
    this.http = new HttpClient({
      baseUrl: serviceOrigin(options.baseUrl),
      token: options.token,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      userAgent: options.userAgent ?? 'rolelink-plugin-sdk',
      fetch: options.fetch ?? globalThis.fetch,
    });
    this.base = `/api/role-link/${enc(options.guildId)}/${enc(options.roleId)}/users`;
  }

  /**
   * GET /users: every user ID (ascending), the list's counters and its version (`ETag`, to send back as
   * `ifMatch` of a later write). Holds the whole list in memory.
   */
  async listUsers(
    options: CallOptions & { includeExpiry?: boolean } = {},
  ): Promise<{ meta: ListMeta; userIds: string[]; listVersion: string | null }> {
    // includeExpiry: meta.expiries maps each expiring user ID to the RFC 3339 time its membership ends.
    const { includeExpiry, ...call } = options;
    const answer = await this.answer({
      method: 'GET',
      path: includeExpiry ? `${this.base}?include=expiry` : this.base,
      timeoutMs: TIMEOUT_MS.put,
      retry: 'idempotent',
      ...call,
    });
    const body = answer.body as UsersListBody;
    return { meta: body.meta, userIds: body.data, listVersion: answer.etag };
  }

  /** GET /users/:userId */
  async hasUser(userId: string, options: CallOptions = {}): Promise<boolean> {
    checkUserId(userId, 'GET', this.base);
    return (await this.data<UserExistsBody>({ method: 'GET', path: `${this.base}/${enc(userId)}`, ...options })).exists;
  }

  /**
   * POST /users/:userId: true when added, false when already there (not an error). Sent with an
   * Idempotency-Key. `{ expiresAt }` or `{ ttlSeconds }`: the membership ends on its own then; without
   * either it is permanent (and an earlier expiry of this user is cleared). No expiry: no body, as before.
   */
  async addUser(userId: string, options: AddUserOptions = {}): Promise<boolean> {
    checkUserId(userId, 'POST', this.base);
    const { expiresAt, ttlSeconds } = options;
    const body =
      expiresAt !== undefined || ttlSeconds !== undefined
        ? {
            ...(expiresAt !== undefined
              ? { expires_at: expiresAt instanceof Date ? expiresAt.toISOString() : expiresAt }
              : {}),
            ...(ttlSeconds !== undefined ? { ttl_seconds: ttlSeconds } : {}),
          }
        : undefined;
    return (
      await this.data<UserAddedBody>({
        method: 'POST',
        path: `${this.base}/${enc(userId)}`,
        body,
        headers: keyHeader(options),
        signal: options.signal,
      })
    ).added;
  }

  /** DELETE /users/:userId: true when removed, false when absent. Never held. Sent with an Idempotency-Key. */
  async removeUser(userId: string, options: IdempotentOptions = {}): Promise<boolean> {
    checkUserId(userId, 'DELETE', this.base);
    return (
      await this.data<UserRemovedBody>({
        method: 'DELETE',
        path: `${this.base}/${enc(userId)}`,
        headers: keyHeader(options),
        signal: options.signal,
      })
    ).removed;
  }

  /**
   * Replaces the whole list with `ids` (an array, or any sync or async iterable, so a 30M list never
   * has to be one array): PUT up to `maxPutUsers`, the chunked upload above. A large removal comes
   * back as `{ held }` with `confirm()`; see replace-users.ts.
   */
  replaceUsers(
    ids: Iterable<string> | AsyncIterable<string>,
    options: ReplaceOptions & { dryRun: true },
  ): Promise<ReplaceDryRun>;
  replaceUsers(
    ids: Iterable<string> | AsyncIterable<string>,
    options?: ReplaceOptions & { dryRun?: false },
  ): Promise<ReplaceOutcome>;
  replaceUsers(
    ids: Iterable<string> | AsyncIterable<string>,
    options: ReplaceOptions = {},
  ): Promise<ReplaceOutcome | ReplaceDryRun> {
    return replaceUsers(this, ids, options);
  }

  /** PUT /users with at most 100,000 IDs (the plan's per-request cap; 413 above it). */
  async putUsers(ids: readonly string[], options: WholeListOptions = {}): Promise<WriteOutcome> {
    checkUserIds(ids, 'PUT', this.base);
    const answer = await this.http.send({
      method: 'PUT',
      path: this.base,
      body: ids,
      headers: writeHeaders(options),
      timeoutMs: TIMEOUT_MS.put,
      retry: 'idempotent',
      signal: options.signal,
    });
    return writeOutcome(answer);
  }

  /** PUT /users?dry_run=true: what the PUT would do (adds, removals, holds, limits); writes nothing. */
  async previewPut(
    ids: readonly string[],
    options: Omit<WholeListOptions, 'idempotencyKey'> = {},
  ): Promise<DryRunResult> {
    checkUserIds(ids, 'PUT', this.base);
    return this.data<DryRunBody>({
      method: 'PUT',
      path: `${this.base}?dry_run=true`,
      body: ids,
      headers: writeHeaders({ ...options, idempotencyKey: '' }),
      timeoutMs: TIMEOUT_MS.put,
      signal: options.signal,
    });
  }

  /** POST /users/upload: opens a chunked upload session (premium plan), returns its id. */
  async createUpload(options: CallOptions = {}): Promise<string> {
    // A repeated create after a lost answer only leaves an unused session, which expires in 24 h.
    return (await this.data<UploadCreatedBody>({ method: 'POST', path: `${this.base}/upload`, ...options })).upload_id;
  }

  /** POST /users/upload/:uploadId/chunk with at most 100,000 IDs. */
  async addChunk(uploadId: string, ids: readonly string[], options: CallOptions = {}): Promise<UploadProgress> {
    checkUserIds(ids, 'POST', `${this.base}/upload/${enc(uploadId)}/chunk`);
    return this.data<ChunkAcceptedBody>({
      method: 'POST',
      path: `${this.base}/upload/${enc(uploadId)}/chunk`,
      body: ids,
      timeoutMs: TIMEOUT_MS.chunk,
      ...options,
    });
  }

  /**
   * POST /users/upload/:uploadId/commit: replaces the list with the staged IDs, or answers `{ held }`.
   * Retried like any idempotent call: its Idempotency-Key makes a repeat after a lost answer get the
   * first answer back instead of a 404 for the closed session. With `idempotencyKey: ''` no key is sent
   * and a commit is only repeated after answers that prove nothing was done (429, a refused connection).
   */
  async commitUpload(uploadId: string, options: WholeListOptions = {}): Promise<WriteOutcome> {
    const headers = writeHeaders(options);
    const answer = await this.http.send({
      method: 'POST',
      path: `${this.base}/upload/${enc(uploadId)}/commit`,
      headers,
      timeoutMs: TIMEOUT_MS.commit,
      retry: headers['Idempotency-Key'] ? 'idempotent' : 'unprocessed',
      signal: options.signal,
    });
    return writeOutcome(answer);
  }

  /** POST /users/upload/:uploadId/commit?dry_run=true: what the commit would do; the session stays open. */
  async previewCommit(uploadId: string, options: Omit<WholeListOptions, 'idempotencyKey'> = {}): Promise<DryRunResult> {
    return this.data<DryRunBody>({
      method: 'POST',
      path: `${this.base}/upload/${enc(uploadId)}/commit?dry_run=true`,
      headers: writeHeaders({ ...options, idempotencyKey: '' }),
      timeoutMs: TIMEOUT_MS.commit,
      signal: options.signal,
    });
  }

  /** DELETE /users/upload/:uploadId: discards the staged IDs; the live list is untouched. */
  async cancelUpload(uploadId: string, options: CallOptions = {}): Promise<void> {
    await this.data<UploadCancelledBody>({
      method: 'DELETE',
      path: `${this.base}/upload/${enc(uploadId)}`,
      ...options,
    });
  }

  /** The `data` of a success body, typed by the route's body in @rolelink/wire-types. */
  private async data<B extends DataBody<unknown>>(
    call: Omit<HttpCall, 'timeoutMs' | 'retry'> & { timeoutMs?: number },
  ): Promise<B['data']> {
    return ((await this.call({ timeoutMs: TIMEOUT_MS.short, retry: 'idempotent', ...call })) as B).data;
  }

  private async call(call: HttpCall): Promise<unknown> {
    return (await this.answer(call)).body;
  }

  private async answer(call: HttpCall): Promise<HttpAnswer> {
    const answer = await this.http.send(call);
    // Only whole-list writes are ever held; a 409 anywhere else is unexpected, so it is an error.
    if (answer.status === 409)
      throw new RoleLinkApiError(
        409,
        heldOf(answer)?.message ?? 'HTTP 409',
        call.method,
        call.path,
        answer.body,
        answer.requestId,
        answer.etag,
      );
    return answer;
  }
}

/** One key per logical call (the caller's, or a fresh UUID); '' sends none. */
function keyHeader(options: IdempotentOptions): Record<string, string> {
  const key = options.idempotencyKey ?? randomUUID();
  return key ? { 'Idempotency-Key': key } : {};
}

function writeHeaders(options: WholeListOptions): Record<string, string> {
  return {
    ...keyHeader(options),
    ...(options.confirm ? { [CONFIRM_HEADER]: options.confirm } : {}),
    ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}),
  };
}

function heldOf(answer: HttpAnswer): ShrinkBody['errors'] | null {
  const errors = (answer.body as Partial<ShrinkBody> | null)?.errors;
  return errors?.error === 'confirm_required' ? errors : null;
}

function writeOutcome(answer: HttpAnswer): WriteOutcome {
  if (answer.status === 409) {
    const held = heldOf(answer);
    if (!held) throw new RoleLinkApiError(409, 'HTTP 409', 'PUT', '', answer.body, answer.requestId);
    return {
      held: {
        changeId: held.change_id,
        previous: held.previous,
        next: held.next,
        removals: held.removals,
        message: held.message,
      },
      replayed: answer.replayed,
    };
  }
  return {
    held: null,
    userCount: (answer.body as UserCountBody).data.user_count,
    listVersion: answer.etag,
    replayed: answer.replayed,
  };
}
