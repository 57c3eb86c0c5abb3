import type { CallOptions, DryRunResult, HeldChange, WholeListOptions, WholeListWriter } from './types';
import type { AbortSignalLike } from '../host-types';

/** Spec 4.1: at most 100,000 IDs per PUT and per chunk; about 4 chunks in flight. */
export const REPLACE_DEFAULTS = {
  maxPutUsers: 100_000,
  chunkSize: 100_000,
  concurrency: 4,
} as const satisfies Required<Omit<ReplaceOptions, keyof WholeListOptions | 'dryRun'>>;

/**
 * `idempotencyKey` and `ifMatch` go on the PUT, or on the commit of the chunked flow (the write that
 * changes the list); `confirm()` of a hold is a new call with a new key.
 */
export type ReplaceOptions = WholeListOptions & {
  /**
   * Ask what would happen instead (`?dry_run=true` on the PUT, or on the commit: the chunks are staged,
   * the commit previewed, then the session cancelled). Nothing is written; answers `{ dryRun }`.
   */
  dryRun?: boolean;
  /** Lists up to this size go in one PUT; larger ones through the chunked upload. */
  maxPutUsers?: number;
  chunkSize?: number;
  /** Chunks sent at once. */
  concurrency?: number;
};

/** `listVersion`: the list's version after the write (send it as `ifMatch` next time); `replayed`: see WriteOutcome. */
export type ReplaceApplied = {
  held: null;
  userCount: number;
  via: 'put' | 'upload';
  listVersion: string | null;
  replayed: boolean;
};

/** The answer of a dry run: what the write would do. Nothing was written, no session left open. */
export type ReplaceDryRun = { dryRun: DryRunResult; via: 'put' | 'upload' };

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

export async function replaceUsers(
  client: WholeListWriter,
  source: Source,
  options: ReplaceOptions,
): Promise<ReplaceOutcome | ReplaceDryRun> {
  const { maxPutUsers, chunkSize, concurrency } = { ...REPLACE_DEFAULTS, ...definedOnly(options) };
  const it = iteratorOf(source);
  // Read one past the PUT cap: only then is it known whether the list fits one request.
  const head = await take(it, maxPutUsers + 1);
  if (head.length <= maxPutUsers) {
    if (options.dryRun)
      return {
        dryRun: await client.previewPut(head, {
          confirm: options.confirm,
          ifMatch: options.ifMatch,
          signal: options.signal,
        }),
        via: 'put',
      };
    return putWhole(client, head, options);
  }
  return uploadInChunks(client, head, it, { ...options, chunkSize, concurrency });
}

async function putWhole(client: WholeListWriter, ids: string[], options: ReplaceOptions): Promise<ReplaceOutcome> {
  const send = async (
    confirm: string | undefined,
    signal: AbortSignalLike | undefined,
    idempotencyKey?: string,
  ): Promise<ReplaceOutcome> => {
    const outcome = await client.putUsers(ids, { confirm, signal, ifMatch: options.ifMatch, idempotencyKey });
    if (outcome.held === null)
      return {
        held: null,
        userCount: outcome.userCount,
        via: 'put',
        listVersion: outcome.listVersion,
        replayed: outcome.replayed,
      };
    return {
      held: outcome.held,
      via: 'put',
      confirm: (changeId = outcome.held.changeId, o = {}) => send(changeId, o.signal),
      cancel: () => Promise.resolve(),
    };
  };
  return send(options.confirm, options.signal, options.idempotencyKey);
}

type UploadOptions = WholeListOptions & { chunkSize: number; concurrency: number; dryRun?: boolean };

async function uploadInChunks(
  client: WholeListWriter,
  head: string[],
  rest: AsyncIterator<string> | Iterator<string>,
  options: UploadOptions,
): Promise<ReplaceOutcome | ReplaceDryRun> {
  const uploadId = await client.createUpload({ signal: options.signal });
  // Any failure cancels the session; its own signal also stops the chunks still in flight.
  const local = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal as AbortSignal, local.signal]) : local.signal;
  const cancel = (o: CallOptions = {}) =>
    client.cancelUpload(uploadId, { signal: o.signal ?? AbortSignal.timeout(30_000) });
  try {
    await sendChunks(client, uploadId, head, rest, options, signal, local);
    if (options.dryRun) {
      const dryRun = await client.previewCommit(uploadId, {
        confirm: options.confirm,
        ifMatch: options.ifMatch,
        signal: options.signal,
      });
      await cancel().catch(() => undefined); // a preview leaves the session open; nothing else will use it
      return { dryRun, via: 'upload' };
    }
    return await commit(client, uploadId, options, cancel);
  } catch (err) {
    local.abort();
    // Best effort: an expired session is collected by the service anyway; the first error is the news.
    await cancel().catch(() => undefined);
    throw err;
  }
}

async function sendChunks(
  client: WholeListWriter,
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
  client: WholeListWriter,
  uploadId: string,
  options: WholeListOptions,
  cancel: (o?: CallOptions) => Promise<void>,
): Promise<ReplaceOutcome> {
  const outcome = await client.commitUpload(uploadId, options);
  if (outcome.held === null)
    return {
      held: null,
      userCount: outcome.userCount,
      via: 'upload',
      listVersion: outcome.listVersion,
      replayed: outcome.replayed,
    };
  // The service keeps the staging of a held commit: confirming re-commits the same session (a new call, a new key).
  return {
    held: outcome.held,
    via: 'upload',
    confirm: (changeId = outcome.held.changeId, o = {}) =>
      commit(client, uploadId, { confirm: changeId, ifMatch: options.ifMatch, signal: o.signal }, cancel),
    cancel,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
