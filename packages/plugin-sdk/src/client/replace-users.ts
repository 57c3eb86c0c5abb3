import type { RoleLinkClient } from './role-link-client';
import type { CallOptions, HeldChange } from './types';

/** Spec 4.1: at most 100,000 IDs per PUT and per chunk; about 4 chunks in flight. */
export const REPLACE_DEFAULTS = { maxPutUsers: 100_000, chunkSize: 100_000, concurrency: 4 } as const satisfies Required<Omit<ReplaceOptions, keyof CallOptions | 'confirm'>>;

export type ReplaceOptions = CallOptions & {
  /** Lists up to this size go in one PUT; larger ones through the chunked upload. */
  maxPutUsers?: number;
  chunkSize?: number;
  /** Chunks sent at once. */
  concurrency?: number;
  /** A `change_id` from an earlier hold, sent as X-RoleLink-Confirm with this write. */
  confirm?: string;
};

export type ReplaceApplied = { held: null; userCount: number; via: 'put' | 'upload' };

/**
 * The service held the write (spec 4.1 rule 6): nothing changed. `confirm()` repeats it with the
 * `change_id` (the PUT's IDs were kept in memory; an upload keeps its staging on the service), within
 * one hour. `cancel()` discards an upload's staging; for a PUT there is nothing to discard.
 */
export type ReplaceHeld = {
  held: HeldChange;
  via: 'put' | 'upload';
  confirm(changeId?: string, options?: CallOptions): Promise<ReplaceOutcome>;
  cancel(options?: CallOptions): Promise<void>;
};

export type ReplaceOutcome = ReplaceApplied | ReplaceHeld;

type Source = Iterable<string> | AsyncIterable<string>;

function iteratorOf(source: Source): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
}

/** Up to `n` more items of `it`; fewer means the source is exhausted. */
async function take(it: AsyncIterator<string> | Iterator<string>, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

export async function replaceUsers(client: RoleLinkClient, source: Source, options: ReplaceOptions): Promise<ReplaceOutcome> {
  const { maxPutUsers, chunkSize, concurrency } = { ...REPLACE_DEFAULTS, ...definedOnly(options) };
  const it = iteratorOf(source);
  // Read one past the PUT cap: only then is it known whether the list fits one request.
  const head = await take(it, maxPutUsers + 1);
  if (head.length <= maxPutUsers) return putWhole(client, head, options);
  return uploadInChunks(client, head, it, { chunkSize, concurrency, signal: options.signal, confirm: options.confirm });
}

async function putWhole(client: RoleLinkClient, ids: string[], options: ReplaceOptions): Promise<ReplaceOutcome> {
  const send = async (confirm: string | undefined, signal: AbortSignal | undefined): Promise<ReplaceOutcome> => {
    const outcome = await client.putUsers(ids, { confirm, signal });
    if (outcome.held === null) return { held: null, userCount: outcome.userCount, via: 'put' };
    return {
      held: outcome.held,
      via: 'put',
      confirm: (changeId = outcome.held.changeId, o = {}) => send(changeId, o.signal),
      cancel: async () => undefined,
    };
  };
  return send(options.confirm, options.signal);
}

type UploadOptions = { chunkSize: number; concurrency: number; signal?: AbortSignal; confirm?: string };

async function uploadInChunks(
  client: RoleLinkClient,
  head: string[],
  rest: AsyncIterator<string> | Iterator<string>,
  options: UploadOptions,
): Promise<ReplaceOutcome> {
  const uploadId = await client.createUpload({ signal: options.signal });
  // Any failure cancels the session; its own signal also stops the chunks still in flight.
  const local = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
  const cancel = (o: CallOptions = {}) => client.cancelUpload(uploadId, { signal: o.signal ?? AbortSignal.timeout(30_000) });
  try {
    await sendChunks(client, uploadId, head, rest, options, signal, local);
    return await commit(client, uploadId, options.confirm, options.signal, cancel);
  } catch (err) {
    local.abort();
    // Best effort: an expired session is collected by the service anyway; the first error is the news.
    await cancel().catch(() => undefined);
    throw err;
  }
}

async function sendChunks(
  client: RoleLinkClient,
  uploadId: string,
  head: string[],
  rest: AsyncIterator<string> | Iterator<string>,
  { chunkSize, concurrency }: UploadOptions,
  signal: AbortSignal,
  local: AbortController,
): Promise<void> {
  const inflight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const send = (ids: string[]) => {
    const p: Promise<void> = client
      .addChunk(uploadId, ids, { signal })
      .then(
        () => undefined,
        (error: unknown) => {
          failure ??= { error };
          local.abort();
        },
      )
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };
  let buffer = head;
  for (;;) {
    while (buffer.length >= chunkSize) {
      send(buffer.slice(0, chunkSize));
      buffer = buffer.slice(chunkSize);
      // Backpressure: the source is not read further while `concurrency` chunks are on their way.
      while (inflight.size >= concurrency && !failure) await Promise.race(inflight);
      if (failure) break;
    }
    if (failure) break;
    const more = await take(rest, chunkSize - buffer.length);
    buffer = buffer.concat(more);
    if (buffer.length < chunkSize) break;
  }
  if (!failure && buffer.length) send(buffer);
  await Promise.all(inflight);
  if (failure) throw (failure as { error: unknown }).error;
}

async function commit(
  client: RoleLinkClient,
  uploadId: string,
  confirm: string | undefined,
  signal: AbortSignal | undefined,
  cancel: (o?: CallOptions) => Promise<void>,
): Promise<ReplaceOutcome> {
  const outcome = await client.commitUpload(uploadId, { confirm, signal });
  if (outcome.held === null) return { held: null, userCount: outcome.userCount, via: 'upload' };
  // The service keeps the staging of a held commit: confirming re-commits the same session.
  return {
    held: outcome.held,
    via: 'upload',
    confirm: (changeId = outcome.held.changeId, o = {}) => commit(client, uploadId, changeId, o.signal, cancel),
    cancel,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
