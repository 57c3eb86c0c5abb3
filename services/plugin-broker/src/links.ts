import { decryptToken } from '@rolelink/domain';
import { findPluginLink, findPluginLinkByRole, type PluginLinkRow } from '@rolelink/db/links';
import type { BrokerContext } from './context';

/** What a plugin call needs about its link. `token` is the raw API token: never logged, never returned. */
export type PluginLink = { id: string; guildId: string; roleId: string; pluginUrl: string; token: string };

export async function loadLink(ctx: BrokerContext, linkId: string): Promise<PluginLink | null> {
  return withToken(ctx, await findPluginLink(ctx.db, linkId));
}

/** The link of a guild's role: a config save is addressed that way, so its one read is this one. */
export async function loadLinkByRole(ctx: BrokerContext, guildId: string, roleId: string): Promise<PluginLink | null> {
  return withToken(ctx, await findPluginLinkByRole(ctx.db, guildId, roleId));
}

function withToken(ctx: BrokerContext, row: PluginLinkRow | null): PluginLink | null {
  if (!row) return null;
  return {
    id: row.id,
    guildId: row.guildId,
    roleId: row.roleId,
    pluginUrl: row.pluginUrl,
    token: decryptToken(row.tokenCiphertext, ctx.secretKey),
  };
}
