import { userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';
import { linkArgs, pluginContext, printable, resolveLink, validationError, type LinkArgs, type PluginCommandContext, type Printable } from './config';

export type IframeUrl = { embed_url: string; expires_in: number; source: string };

/**
 * `rolelink iframe-url <guildId> <roleId> --viewer <userId>`: the embed URL with a fresh rl_token for
 * that viewer (spec 4.3, 5.7), exactly as the dashboard frames it. 400 when the plugin is in schema mode.
 */
export async function iframeUrl(ctx: PluginCommandContext, args: LinkArgs & { viewerId: string }): Promise<Printable<IframeUrl>> {
  const viewer = userId.safeParse(args.viewerId);
  if (!viewer.success) throw validationError('viewer', 'must be a 17 to 20 digit user ID');
  const link = await resolveLink(ctx.prisma, args);
  const view = await ctx.plugins.fetchConfig(link.id, { viewerId: viewer.data });
  if (view.ui_mode !== 'iframe') throw new AppError(400, 'This plugin uses the configuration form (schema mode), not an embedded page', 'schema_mode');
  const data = { embed_url: view.embed_url, expires_in: 300, source: view.source };
  return printable(data, { embed_url: view.embed_url, expires_in: '300 s' });
}

export const iframeCommands: Command[] = [
  {
    words: ['iframe-url'],
    args: ['guildId', 'roleId'],
    options: { viewer: { type: 'string', description: 'user ID of the admin the token is minted for' } },
    summary: 'The iframe embed URL with a fresh rl_token for a viewer (iframe-mode plugins)',
    run: (ctx, a, f) => iframeUrl(pluginContext(ctx), { ...linkArgs(a), viewerId: typeof f.viewer === 'string' ? f.viewer : '' }),
  },
];
