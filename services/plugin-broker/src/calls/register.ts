import { PluginCallMessage, registerAnswer, subscribedKinds, type PluginRegisterBody } from '@rolelink/contracts';
import { subscribeLinkEvents } from '@rolelink/db/events';
import { roleHolders } from '@rolelink/db/list';
import { AppError } from '@rolelink/runtime';
import type { BrokerContext } from '../context';
import { loadLink } from '../links';
import { callPlugin, failureDetail, parseJson, refusalDetail } from './call-plugin';

function failed(detail: string): AppError {
  return AppError.pluginFailure(502, PluginCallMessage.register, 'plugin_register_failed', detail);
}

/**
 * POST {plugin}/register with the link's token (spec 4.2): any 2xx confirms, anything else is a 502 whose
 * `detail` gives the plugin's status and the start of its body. The body also tells the plugin the link's
 * member mode and the role's current holders, which a hand-over's first list is judged against.
 */
export async function registerLink(ctx: BrokerContext, linkId: string): Promise<null> {
  const link = await loadLink(ctx, linkId);
  const holders = link ? await roleHolders(ctx.db, linkId) : null;
  if (!link || !holders) throw failed('role link not found (was its row committed before the call?)');
  const json: PluginRegisterBody = {
    guild_id: link.guildId,
    role_id: link.roleId,
    member_mode: holders.memberMode,
    current_holders: holders.currentHolders,
  };
  let status: number;
  let body: Buffer;
  try {
    ({ status, body } = await callPlugin(ctx, 'register', {
      method: 'POST',
      url: `${link.pluginUrl}/register`,
      token: link.token,
      json,
      timeoutMs: ctx.timeouts.register,
    }));
  } catch (err) {
    throw failed(failureDetail(err));
  }
  if (status < 200 || status >= 300) throw failed(refusalDetail(status, body));
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
