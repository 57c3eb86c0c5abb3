import { userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';
import {
  linkArgs,
  pluginContext,
  printable,
  resolveLink,
  type LinkArgs,
  type PluginCommandContext,
  type Printable,
} from './config';

/** `expires_in` and `viewer` are null for the bare URL (no rl_token). */
export type IframeUrl = { embed_url: string; expires_in: number | null; viewer: string | null; source: string };

const NO_VIEWER_NOTE =
  'no rl_token: the plugin page cannot tell who is viewing and may refuse it; pass --viewer <userId> to mint one (valid 5 minutes)';

/**
 * `rolelink iframe-url <guildId> <roleId> [--viewer <userId>]`: the embed URL with a fresh rl_token for
 * that viewer (spec 4.3, 5.7), exactly as the dashboard frames it. Without --viewer, the bare URL: the
 * token's `sub` claims who is looking, and the CLI does not claim it for anyone who did not ask (not even
 * the owner). 400 when the plugin is in schema mode.
 */
export async function iframeUrl(
  ctx: PluginCommandContext,
  args: LinkArgs & { viewerId?: string | undefined },
): Promise<Printable<IframeUrl>> {
  let viewerId: string | undefined;
  if (args.viewerId !== undefined) {
    const viewer = userId.safeParse(args.viewerId);
    if (!viewer.success)
      throw AppError.validation([
        { field: 'viewer', message: viewer.error.issues[0]?.message ?? 'must be a 17 to 20 digit user ID' },
      ]);
    viewerId = viewer.data;
  }
  const link = await resolveLink(ctx.db, args);
  const view = await ctx.plugins.fetchConfig(link.id, viewerId === undefined ? {} : { viewerId });
  if (view.ui_mode !== 'iframe')
    throw new AppError(
      400,
      'This plugin uses the configuration form (schema mode), not an embedded page',
      'schema_mode',
    );
  if (viewerId === undefined) {
    return printable(
      { embed_url: view.embed_url, expires_in: null, viewer: null, source: view.source },
      { embed_url: view.embed_url, note: NO_VIEWER_NOTE },
    );
  }
  const data = { embed_url: view.embed_url, expires_in: 300, viewer: viewerId, source: view.source };
  return printable(data, { embed_url: view.embed_url, viewer: viewerId, expires_in: '300 s' });
}

export const iframeCommands: Command[] = [
  {
    words: ['iframe-url'],
    args: ['guildId', 'roleId'],
    options: { viewer: { type: 'string', description: 'user ID of the admin the token is minted for' } },
    summary:
      'The iframe embed URL (iframe-mode plugins); with --viewer <userId> it carries a fresh rl_token for that user, without it the bare URL',
    run: (ctx, a, f) =>
      iframeUrl(pluginContext(ctx), { ...linkArgs(a), viewerId: typeof f.viewer === 'string' ? f.viewer : undefined }),
  },
];
