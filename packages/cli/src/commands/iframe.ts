import { parseArgs } from 'node:util';
import { userId } from '@rolelink/contracts';
import { AppError } from '@rolelink/runtime';
import { linkArgs, resolveLink, type CommandResult, type LinkArgs, type PluginCommandContext } from './config';

/**
 * `rolelink iframe-url <guildId> <roleId> --viewer <userId>`: the embed URL with a fresh rl_token for
 * that viewer (spec 4.3, 5.7), exactly as the dashboard would frame it. 400 when the plugin is in schema mode.
 */
export async function iframeUrl(ctx: PluginCommandContext, args: LinkArgs & { viewerId: string }): Promise<CommandResult> {
  const viewer = userId.safeParse(args.viewerId);
  if (!viewer.success) {
    throw new AppError(400, 'Validation error', 'validation', { statusCode: 400, message: 'Validation error', errors: [{ field: 'viewer', message: 'must be a 17 to 20 digit user ID' }] });
  }
  const link = await resolveLink(ctx.prisma, args);
  const view = await ctx.plugins.fetchConfig(link.id, { viewerId: viewer.data });
  if (view.ui_mode !== 'iframe') throw new AppError(400, 'This plugin uses the configuration form (schema mode), not an embedded page', 'schema_mode');
  const data = { embed_url: view.embed_url, expires_in: 300, source: view.source };
  return { data, text: view.embed_url };
}

export async function iframeUrlRun(ctx: PluginCommandContext, argv: string[]): Promise<CommandResult> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { viewer: { type: 'string' }, json: { type: 'boolean' } } });
  return iframeUrl(ctx, { ...linkArgs(positionals), viewerId: values.viewer ?? '' });
}
