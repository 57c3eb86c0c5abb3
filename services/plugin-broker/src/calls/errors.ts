import { PluginCallMessage, type BrokerLinkRef } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { BrokerContext } from '../context';
import { loadLink, loadLinkByRole, type PluginLink } from '../links';
import type { GetConfigResult } from './get-config';

export async function requireLink(ctx: BrokerContext, linkId: string): Promise<PluginLink> {
  const link = await loadLink(ctx, linkId);
  if (!link) throw AppError.notFound('Role link not found');
  return link;
}

/** The same 404 (the body the dashboard answered when it looked the link up itself) for a link named by its role. */
export async function requireLinkByRole(ctx: BrokerContext, ref: BrokerLinkRef): Promise<PluginLink> {
  const link = await loadLinkByRole(ctx, ref.guildId, ref.roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  return link;
}

/** The 502s of spec 7 for a failed GET /config with no cached structure to fall back on. */
export function fetchFailure(result: Exclude<GetConfigResult, { ok: true }>): AppError {
  if (result.reason === 'unreachable') {
    return AppError.pluginFailure(502, PluginCallMessage.fetchUnreachable, 'plugin_unreachable', result.detail);
  }
  return AppError.fields(502, PluginCallMessage.invalidSchema, 'plugin_invalid_schema', result.errors);
}
