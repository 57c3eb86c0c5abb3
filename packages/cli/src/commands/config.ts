import { parseArgs } from 'node:util';
import type { ConfigView } from '@rolelink/contracts';
import { snowflake } from '@rolelink/contracts';
import type { PrismaClient } from '@rolelink/db';
import type { PluginCallsClient } from '@rolelink/queue';
import { AppError } from '@rolelink/runtime';

/**
 * `rolelink config get|set`, `iframe-url` and `health` (issue 4). Each command is a typed function
 * `(ctx, args) => Promise<CommandResult>` plus a `run(ctx, argv)` adapter parsing its own argv, so the
 * command registry only routes. Errors are the AppErrors the dashboard shows (spec 7).
 */
export type PluginCommandContext = { prisma: PrismaClient; plugins: PluginCallsClient };
/** `data` is printed with --json; `text` otherwise. */
export type CommandResult = { data: unknown; text: string };
export type LinkArgs = { guildId: string; roleId: string };

function parseId(name: string, value: string | undefined): string {
  const r = snowflake.safeParse(value);
  if (!r.success) throw new AppError(400, 'Validation error', 'validation', { statusCode: 400, message: 'Validation error', errors: [{ field: name, message: value === undefined ? 'is required' : 'must be a numeric string' }] });
  return r.data;
}

/** Positional `<guildId> <roleId>` checked like the API's path parameters. */
export function linkArgs(positionals: string[]): LinkArgs {
  return { guildId: parseId('guildId', positionals[0]), roleId: parseId('roleId', positionals[1]) };
}

export async function resolveLink(prisma: PrismaClient, args: LinkArgs): Promise<{ id: bigint; pluginUrl: string }> {
  const link = await prisma.roleLink.findUnique({
    where: { guildId_roleId: { guildId: BigInt(args.guildId), roleId: BigInt(args.roleId) } },
    select: { id: true, pluginUrl: true },
  });
  if (!link) throw AppError.notFound('Role link not found');
  return link;
}

function describeView(view: ConfigView): string {
  const lines: string[] = [];
  if (view.source === 'fallback') lines.push(`! plugin ${view.fallback_reason === 'unreachable' ? 'unreachable' : 'returned an invalid schema'}: showing the structure fetched at ${view.fetched_at}, without values`);
  if (view.ui_mode === 'iframe') {
    lines.push(`${view.name} (iframe mode)`, ...(view.description ? [view.description] : []), `embed_url: ${view.embed_url}`);
    return lines.join('\n');
  }
  lines.push(`${view.schema.name} (schema mode, structure from ${view.source}, fetched ${view.fetched_at})`);
  for (const section of view.schema.sections) {
    lines.push(`[${section.title}]`);
    for (const f of section.fields) {
      if (f.type === 'display') continue;
      const value = Object.prototype.hasOwnProperty.call(view.values, f.key) ? JSON.stringify(view.values[f.key]) : '(unset)';
      lines.push(`  ${f.key} (${f.type}${'validation' in f && f.validation?.required ? ', required' : ''}): ${f.type === 'secret' && value !== '(unset)' ? '********' : value}`);
    }
  }
  return lines.join('\n');
}

/** `rolelink config get <guildId> <roleId> [--refresh]`: the validated schema with fresh values, or the iframe embed URL. */
export async function configGet(ctx: PluginCommandContext, args: LinkArgs & { refresh?: boolean }): Promise<CommandResult> {
  const link = await resolveLink(ctx.prisma, args);
  const view = await ctx.plugins.fetchConfig(link.id, { refresh: args.refresh ?? false });
  return { data: view, text: describeView(view) };
}

/** `rolelink config set <guildId> <roleId> --json '{...}'`: validated against the form, then POST /config. */
export async function configSet(ctx: PluginCommandContext, args: LinkArgs & { config: string }): Promise<CommandResult> {
  let config: unknown;
  try {
    config = JSON.parse(args.config);
  } catch {
    throw new AppError(400, 'Validation error', 'validation', { statusCode: 400, message: 'Validation error', errors: [{ field: 'config', message: '--json must be a JSON object' }] });
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new AppError(400, 'Validation error', 'validation', { statusCode: 400, message: 'Validation error', errors: [{ field: 'config', message: '--json must be a JSON object' }] });
  }
  const link = await resolveLink(ctx.prisma, args);
  const result = await ctx.plugins.submitConfig(link.id, config as Record<string, unknown>);
  return { data: result, text: `saved (plugin answered ${result.status})${result.body === null ? '' : `: ${JSON.stringify(result.body)}`}` };
}

/**
 * argv adapters. `--json` selects JSON output for every command, so `config set` takes its payload as
 * `--json '{...}'` too: a value right after `--json` that starts with `{` is the config (and implies JSON
 * output); `--config '{...}'` is accepted as an unambiguous spelling.
 */
export async function configGetRun(ctx: PluginCommandContext, argv: string[]): Promise<CommandResult> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { refresh: { type: 'boolean' }, json: { type: 'boolean' } } });
  return configGet(ctx, { ...linkArgs(positionals), refresh: values.refresh ?? false });
}

export async function configSetRun(ctx: PluginCommandContext, argv: string[]): Promise<CommandResult> {
  const args = [...argv];
  let config: string | undefined;
  const at = args.findIndex((a, i) => (a === '--json' || a === '--config') && args[i + 1]?.trimStart().startsWith('{'));
  if (at >= 0) config = args.splice(at, 2)[1];
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, config: { type: 'string' } } });
  config ??= values.config;
  if (config === undefined) {
    throw new AppError(400, 'Validation error', 'validation', { statusCode: 400, message: 'Validation error', errors: [{ field: 'config', message: "pass the config as --json '{...}'" }] });
  }
  return configSet(ctx, { ...linkArgs(positionals), config });
}
