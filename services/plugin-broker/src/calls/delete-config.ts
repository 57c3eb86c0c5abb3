import { DelayedError, type Job } from 'bullmq';
import type { JobData, PluginLinkBody } from '@rolelink/contracts';
import { eventPending } from '@rolelink/db/events';
import { decryptToken } from '@rolelink/domain';
import { DEFAULT_EVENT_DELIVERY, type BrokerContext } from '../context';
import { PluginCallFailure } from '@rolelink/plugin-http';
import { callPlugin } from './call-plugin';

type Data = JobData<'plugin-calls', 'delete-config'>;

/** Re-checks of a `link.deleted` still pending: a tenth of the wait so far, between 1 s and 10 min. */
const recheckInMs = (waitedMs: number) => Math.min(600_000, Math.max(1_000, Math.floor(waitedMs / 10)));

/**
 * DELETE /config waits for the link's `link.deleted` event (`afterEvent`): the plugin forgets the token
 * on DELETE /config, and with it the secret the event is signed with, so an event sent afterwards could
 * not be verified and would be retried for the whole window. The job is put back (delayed, no attempt
 * used) while the event is pending; past the event's retry window (plus an hour) it goes anyway, so a
 * stalled delivery never keeps it forever. Returns true when the job was put back.
 */
async function waitForLinkDeleted(
  ctx: BrokerContext,
  data: Data,
  job: Job | undefined,
  token: string | undefined,
): Promise<boolean> {
  if (!data.afterEvent || !job || !(await eventPending(ctx.db, data.afterEvent))) return false;
  const waited = ctx.now() - job.timestamp;
  if (waited > (ctx.events ?? DEFAULT_EVENT_DELIVERY).windowMs + 3_600_000) return false;
  await job.moveToDelayed(ctx.now() + recheckInMs(waited), token);
  return true;
}

/**
 * DELETE {plugin}/config after a link was deleted (spec 3.1), after its `link.deleted` event: any HTTP
 * answer ends it (failure logged and ignored); no answer at all throws, so BullMQ retries it a few times.
 */
export async function deleteConfig(ctx: BrokerContext, data: Data, job?: Job, jobToken?: string): Promise<void> {
  if (await waitForLinkDeleted(ctx, data, job, jobToken)) throw new DelayedError();
  const token = decryptToken(Buffer.from(data.tokenCiphertext, 'base64'), ctx.secretKey);
  try {
    const res = await callPlugin(ctx, 'delete-config', {
      method: 'DELETE',
      url: `${data.pluginUrl}/config`,
      token,
      json: { guild_id: data.guildId, role_id: data.roleId } satisfies PluginLinkBody,
      timeoutMs: ctx.timeouts.deleteConfig,
    });
    if (res.status < 200 || res.status >= 300)
      ctx.logger.warn('plugin refused DELETE /config; ignored', { url: data.pluginUrl, status: res.status });
  } catch (err) {
    // A blocked address or a redirect will not get better on retry.
    if (err instanceof PluginCallFailure && (err.kind === 'blocked' || err.kind === 'redirect')) {
      ctx.logger.warn('DELETE /config not delivered; ignored', { url: data.pluginUrl, error: err.message });
      return;
    }
    throw err;
  }
}
