import { decryptToken } from '@rolelink/domain';
import { findPluginLink } from '@rolelink/db/links';
import type { BrokerContext } from './context';

/** What a plugin call needs about its link. `token` is the raw API token: never logged, never returned. */
export type PluginLink = { id: string; guildId: string; roleId: string; pluginUrl: string; token: string };

export async function loadLink(ctx: BrokerContext, linkId: string): Promise<PluginLink | null> {
  const row = await findPluginLink(ctx.db, linkId);
  if (!row) return null;
  return {
    id: row.id,
    guildId: row.guildId,
    roleId: row.roleId,
    pluginUrl: row.pluginUrl,
    token: decryptToken(row.tokenCiphertext, ctx.secretKey),
  };
}
