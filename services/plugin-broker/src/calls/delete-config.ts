import type { JobData, PluginLinkBody } from '@rolelink/contracts';
import { decryptToken } from '@rolelink/domain';
import type { BrokerContext } from '../context';
import { PluginCallFailure } from '@rolelink/plugin-http';
import { callPlugin } from './call-plugin';

/**
 * DELETE {plugin}/config after a link was deleted (spec 3.1): any HTTP answer ends it (failure logged and
 * ignored); no answer at all throws, so BullMQ retries it a few times.
 */
export async function deleteConfig(ctx: BrokerContext, data: JobData<'plugin-calls', 'delete-config'>): Promise<void> {
  const token = decryptToken(Buffer.from(data.tokenCiphertext, 'base64'), ctx.secretKey);
  try {
    const res = await callPlugin(ctx, 'delete-config', {
      method: 'DELETE',
      url: `${data.pluginUrl}/config`,
      token,
      json: { guild_id: data.guildId, role_id: data.roleId } satisfies PluginLinkBody,
      timeoutMs: ctx.timeouts.deleteConfig,
    });
    if (res.status < 200 || res.status >= 300) ctx.logger.warn('plugin refused DELETE /config; ignored', { url: data.pluginUrl, status: res.status });
  } catch (err) {
    // A blocked address or a redirect will not get better on retry.
    if (err instanceof PluginCallFailure && (err.kind === 'blocked' || err.kind === 'redirect')) {
      ctx.logger.warn('DELETE /config not delivered; ignored', { url: data.pluginUrl, error: err.message });
      return;
    }
    throw err;
  }
}
