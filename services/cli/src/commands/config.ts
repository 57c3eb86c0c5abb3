import { recordConfigSaved, type AdminDeps } from '@rolelink/admin';
import type { ConfigView } from '@rolelink/contracts';
import { snowflake } from '@rolelink/contracts';
import type { Queryable } from '@rolelink/db/client';
import { findLinkPlugin } from '@rolelink/db/links';
import type { BrokerClient } from '@rolelink/broker-client';
import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';

/**
 * `rolelink config get|set`, and the pieces `iframe-url` and `health` share. Each command is a
 * typed function over `{db, plugins}` (the dashboard's dependencies), registered below for the CLI.
 * Errors are the AppErrors the dashboard shows (spec 7).
 */
export type PluginCommandContext = {
  db: Queryable;
  plugins: BrokerClient;
  /** Records a saved configuration in the audit log. */ admin?: AdminDeps;
};
export type LinkArgs = { guildId: string; roleId: string };

/**
 * A command result printed two ways: `--json` prints `data` (through a hidden toJSON), human output
 * prints the enumerable `human` fields (formatHuman walks own enumerable keys only).
 */
export type Printable<T> = Record<string, unknown> & { toJSON(): T };
export function printable<T>(data: T, human: Record<string, unknown>): Printable<T> {
  return Object.defineProperty({ ...human }, 'toJSON', { value: () => data, enumerable: false }) as Printable<T>;
}

/** `<guildId> <roleId>` checked like the API's path parameters. */
export function linkArgs(args: Record<string, string | undefined>): LinkArgs {
  const check = (name: string): string => {
    const r = snowflake.safeParse(args[name]);
    if (!r.success)
      throw AppError.validation([{ field: name, message: r.error.issues[0]?.message ?? 'must be a numeric string' }]);
    return r.data;
  };
  return { guildId: check('guildId'), roleId: check('roleId') };
}

export async function resolveLink(db: Queryable, args: LinkArgs): Promise<{ id: string; pluginUrl: string }> {
  const link = await findLinkPlugin(db, args.guildId, args.roleId);
  if (!link) throw AppError.notFound('Role link not found');
  return link;
}

/** Human view of a ConfigView: one line per field, secrets masked. */
function humanView(view: ConfigView): Record<string, unknown> {
  const common = {
    structure: `${view.source}, fetched ${view.fetched_at}`,
    ...(view.source === 'fallback'
      ? {
          warning: `plugin ${view.fallback_reason === 'unreachable' ? 'unreachable' : 'returned an invalid schema'}: last known form, without values`,
        }
      : {}),
  };
  if (view.ui_mode === 'iframe') return { plugin: view.name, mode: 'iframe', ...common, embed_url: view.embed_url };
  const fields: Record<string, string> = {};
  for (const section of view.schema.sections) {
    for (const f of section.fields) {
      if (f.type === 'display') continue;
      const has = Object.prototype.hasOwnProperty.call(view.values, f.key);
      const value = !has ? '(unset)' : f.type === 'secret' ? '********' : JSON.stringify(view.values[f.key]);
      fields[f.key] = `${value}  (${f.type}${'validation' in f && f.validation?.required ? ', required' : ''})`;
    }
  }
  return { plugin: view.schema.name, mode: 'schema', ...common, fields };
}

/** `rolelink config get <guildId> <roleId> [--refresh]`: the validated schema with fresh values, or the iframe embed URL. */
export async function configGet(
  ctx: PluginCommandContext,
  args: LinkArgs & { refresh?: boolean },
): Promise<Printable<ConfigView>> {
  const link = await resolveLink(ctx.db, args);
  const view = await ctx.plugins.fetchConfig(link.id, { refresh: args.refresh ?? false });
  return printable(view, humanView(view));
}

/** `rolelink config set <guildId> <roleId> '{...}'`: validated against the form (400 per field), then POST /config. */
export async function configSet(
  ctx: PluginCommandContext,
  args: LinkArgs & { config: string },
): Promise<Printable<{ status: number; body: unknown }>> {
  let config: unknown;
  try {
    config = JSON.parse(args.config);
  } catch {
    throw AppError.validation([{ field: 'config', message: 'must be a JSON object' }]);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw AppError.validation([{ field: 'config', message: 'must be a JSON object' }]);
  // The broker reads the link (404 `Role link not found`) and checks the config against the form.
  const result = await ctx.plugins.submitConfig(
    { guildId: args.guildId, roleId: args.roleId },
    config as Record<string, unknown>,
  );
  if (ctx.admin)
    await recordConfigSaved(ctx.admin, {
      guildId: args.guildId,
      roleId: args.roleId,
      config: config as Record<string, unknown>,
      status: result.status,
    });
  return printable(result, {
    saved: true,
    plugin_status: result.status,
    plugin_answer: result.body === null ? '-' : JSON.stringify(result.body),
  });
}

export const pluginContext = (ctx: {
  database(): { pool: Queryable };
  brokerClient(): BrokerClient;
  admin?(): AdminDeps;
}): PluginCommandContext => ({
  db: ctx.database().pool,
  plugins: ctx.brokerClient(),
  ...(ctx.admin ? { admin: ctx.admin() } : {}),
});

/** How to pass a configuration, for the help and for the error on `--json='{…}'` (the example plugin's field). */
export const CONFIG_SET_EXAMPLE = `config set <guildId> <roleId> '{"member_count": 30}'`;

export const configCommands: Command[] = [
  {
    words: ['config', 'get'],
    args: ['guildId', 'roleId'],
    options: {
      refresh: { type: 'boolean', description: "take the plugin's latest form structure instead of the cached one" },
    },
    summary: "Show the plugin's configuration form with fresh values (or its iframe embed URL)",
    run: (ctx, a, f) => configGet(pluginContext(ctx), { ...linkArgs(a), refresh: f.refresh === true }),
  },
  {
    // The config JSON is an ordinary argument, so the shell's single quotes keep it whole. `--json` is the
    // output switch of every command and is taken off argv first, so it may stand anywhere, or not at all.
    words: ['config', 'set'],
    args: ['guildId', 'roleId', 'configJson'],
    summary:
      "Validate a configuration against the plugin's form and send it (POST /config); the JSON object is the argument after <roleId>, in single quotes ([--json] only makes the answer JSON)",
    example: `rolelink ${CONFIG_SET_EXAMPLE}`,
    run: (ctx, a) => configSet(pluginContext(ctx), { ...linkArgs(a), config: a.configJson ?? '' }),
  },
];
