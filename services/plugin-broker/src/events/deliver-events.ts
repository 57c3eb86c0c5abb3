import type { PluginEvent, QueueName } from '@rolelink/contracts';
import {
  claimEventDelivery,
  nextPendingEvent,
  recordEventAttempt,
  releaseEventDelivery,
  type AttemptInput,
  type EventSubscription,
  type PendingEvent,
} from '@rolelink/db/events';
import { recordEventsDroppedNote } from '@rolelink/db/notifications';
import { decryptToken } from '@rolelink/domain';
import { PluginCallFailure } from '@rolelink/plugin-http';
import { signEvent } from '@rolelink/plugin-sdk';
import type { Producer } from '@rolelink/queue';
import { backoffMs } from '@rolelink/wire-types/backoff';
import { callPlugin } from '../calls/call-plugin';
import { DEFAULT_EVENT_DELIVERY, eventBackoff, type BrokerContext } from '../context';
import { eventLinkLocks, type LinkHold } from './link-locks';

type PluginCalls = Producer<typeof QueueName.pluginCalls>;

/** Events one job sends before it hands the link back to the queue (fairness between links). */
const EVENTS_PER_JOB = 50;

export type DeliveryRun = {
  delivered: number;
  failed: number;
  dropped: number;
  retryInMs: number | null;
  busy: boolean;
  retryKey?: string;
};

/** The body of POST /events for one recorded event (docs/api.md "Events to plugins"). */
export function eventBody(sub: EventSubscription, e: PendingEvent): PluginEvent {
  return {
    id: `evt_${e.id}`,
    type: e.kind,
    timestamp: e.createdAt.toISOString(),
    guild_id: sub.guildId,
    role_id: sub.roleId,
    seq: Number(e.seq),
    data: e.payload,
  } as PluginEvent;
}

/**
 * Sends one link's pending events, lowest seq first, one at a time (the next only after the previous
 * was delivered or dropped: ordered per link). Holds the link's delivery lock (link-locks.ts), so no
 * other broker, nor another job of this one, sends the link's events meanwhile, however long this one
 * takes or stalls. A failure logs the attempt and asks for a retry after the backoff, and the link's later
 * events wait for it; a failure past the retry window drops the event, leaves a health note, and goes on
 * with the next.
 */
export async function deliverLinkEvents(ctx: BrokerContext, jobs: PluginCalls, linkId: string): Promise<DeliveryRun> {
  const opts = ctx.events ?? DEFAULT_EVENT_DELIVERY;
  const run: DeliveryRun = { delivered: 0, failed: 0, dropped: 0, retryInMs: null, busy: false };
  const hold = await eventLinkLocks(ctx).take(linkId);
  if (!hold) {
    run.busy = true;
    return run;
  }
  let leased = false;
  try {
    const sub = await claimEventDelivery(ctx.db, linkId, opts.timeoutMs * 4 + 30_000);
    if (!sub) {
      run.busy = true;
      return run;
    }
    leased = true;
    await sendPending(ctx, linkId, sub, hold, run);
    return run;
  } finally {
    if (leased) await releaseEventDelivery(ctx.db, linkId);
    await hold.release();
    if (run.retryInMs !== null) await askDelivery(ctx, jobs, linkId, run.retryInMs, run.retryKey);
  }
}

async function sendPending(
  ctx: BrokerContext,
  linkId: string,
  sub: EventSubscription,
  hold: LinkHold,
  run: DeliveryRun,
): Promise<void> {
  const opts = ctx.events ?? DEFAULT_EVENT_DELIVERY;
  const token = decryptToken(sub.tokenCiphertext, ctx.secretKey);
  for (let sent = 0; sent < EVENTS_PER_JOB; sent++) {
    const event = await nextPendingEvent(ctx.db, linkId);
    if (!event) return;
    const waitMs = event.nextAttemptAt.getTime() - ctx.now();
    if (waitMs > 0) {
      run.retryInMs = waitMs;
      run.retryKey = `${event.id}.${event.attemptCount}`;
      return;
    }
    // The lock went with its connection (another broker may hold the link now): send nothing more.
    if (!hold.held()) break;
    const attempt = await sendEvent(ctx, sub, token, event);
    if (attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300) {
      await recordEventAttempt(ctx.db, event.id, attempt, { state: 'delivered' });
      run.delivered++;
      continue;
    }
    const nextAt = ctx.now() + backoffMs(eventBackoff(opts), event.attemptCount);
    if (nextAt > event.retryFrom.getTime() + opts.windowMs) {
      await recordEventAttempt(ctx.db, event.id, attempt, { state: 'dropped' });
      await recordEventsDroppedNote(ctx.db, linkId, {
        event_id: event.id,
        kind: event.kind,
        attempts: event.attemptCount + 1,
        plugin_url: sub.pluginUrl,
      });
      ctx.logger.warn('plugin event dropped after its retry window', {
        linkId,
        eventId: event.id,
        kind: event.kind,
        attempts: event.attemptCount + 1,
      });
      run.dropped++;
      continue;
    }
    await recordEventAttempt(ctx.db, event.id, attempt, { state: 'retry', at: new Date(nextAt) });
    run.failed++;
    run.retryInMs = nextAt - ctx.now();
    run.retryKey = `${event.id}.${event.attemptCount + 1}`;
    return;
  }
  run.retryInMs = 0; // more to send (or the lock was lost): the next job goes on
}

/** Asks for the link's delivery now (`due`) or after a delay (`retry`); the sweep covers a lost enqueue. */
export async function askDelivery(
  ctx: BrokerContext,
  jobs: PluginCalls,
  linkId: string,
  delayMs = 0,
  retryKey = '0.0',
): Promise<void> {
  try {
    if (delayMs <= 0)
      await jobs.add('event-deliver', { linkId }, { dedup: 'due', removeOnComplete: true, removeOnFail: 100 });
    else
      await jobs.add(
        'event-deliver',
        { linkId, retry: retryKey },
        { dedup: 'retry', delay: Math.ceil(delayMs), removeOnComplete: true, removeOnFail: 100 },
      );
  } catch (err) {
    ctx.logger.warn('event delivery not enqueued; the sweep covers it', {
      linkId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** One signed POST /events through the guarded client (SSRF rules as for every plugin call). */
async function sendEvent(
  ctx: BrokerContext,
  sub: EventSubscription,
  token: string,
  event: PendingEvent,
): Promise<AttemptInput> {
  const body = JSON.stringify(eventBody(sub, event));
  const started = performance.now();
  try {
    const res = await callPlugin(ctx, 'events', {
      method: 'POST',
      url: `${sub.pluginUrl}/events`,
      token,
      rawJson: body,
      headers: { ...signEvent(token, `evt_${event.id}`, body, new Date(ctx.now())) },
      timeoutMs: (ctx.events ?? DEFAULT_EVENT_DELIVERY).timeoutMs,
    });
    return { httpStatus: res.status, error: null, latencyMs: Math.round(res.durationMs) };
  } catch (err) {
    const error =
      err instanceof PluginCallFailure
        ? `${err.kind}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    return { httpStatus: null, error, latencyMs: Math.round(performance.now() - started) };
  }
}
