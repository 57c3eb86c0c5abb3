import { PluginCallMessage, registerAnswer, subscribedKinds, type PluginLinkBody } from '@rolelink/contracts';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { AppError } from '@rolelink/runtime';
import type { BrokerContext } from '../context';
import { loadLink } from '../links';
import { callPlugin, failureDetail, parseJson } from './call-plugin';

function failed(detail: string): AppError {
  return AppError.pluginFailure(502, PluginCallMessage.register, 'plugin_register_failed', detail);
}

/** POST {plugin}/register with the link's token (spec 4.2): any 2xx confirms, anything else is a 502. */
export async function registerLink(ctx: BrokerContext, linkId: string): Promise<null> {
  const link = await loadLink(ctx, linkId);
  if (!link) throw failed('role link not found (was its row committed before the call?)');
  let status: number;
  let body: Buffer;
  try {
    ({ status, body } = await callPlugin(ctx, 'register', {
      method: 'POST',
      url: `${link.pluginUrl}/register`,
      token: link.token,
      json: { guild_id: link.guildId, role_id: link.roleId } satisfies PluginLinkBody,
      timeoutMs: ctx.timeouts.register,
    }));
  } catch (err) {
    throw failed(failureDetail(err));
  }
  if (status < 200 || status >= 300) throw failed(`plugin answered ${status}`);
  await optIn(ctx, linkId, body);
  return null;
}

/**
 * Any 2xx confirms (spec 4.2); a JSON answer with `events` opts the link in to those event kinds
 * (docs/api.md "Events to plugins"). Any other answer body changes nothing, as before.
 */
async function optIn(ctx: BrokerContext, linkId: string, body: Buffer): Promise<void> {
  const json = parseJson(body);
  const answer = json.ok ? registerAnswer.safeParse(json.value) : null;
  if (answer?.success && answer.data.events !== undefined)
    await subscribeLinkEvents(ctx.db, linkId, subscribedKinds(answer.data.events));
}
