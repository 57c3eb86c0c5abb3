import { parseArgs } from 'node:util';
import { BrokerUnavailableError } from '@rolelink/broker-client';
import { AppError, ConfigError, runMain } from '@rolelink/runtime';
import type { Command, Flags } from './command';
import { commands } from './commands';
import { CONFIG_SET_EXAMPLE } from './commands/config';
import { CliContext } from './context';
import { brokerUrlSource, loadEnv } from './env';
import { formatHuman } from './output';

/** One command's syntax, e.g. `link create <guildId> <roleId> [--plugin-url <value>] [--keep-members]`. */
function syntax(c: Command): string {
  const opts = Object.keys(c.options ?? {}).map((o) => `[--${o}${c.options![o]!.type === 'string' ? ' <value>' : ''}]`);
  return [...c.words, ...c.args.map((a) => `<${a}>`), ...(c.optionalArgs ?? []).map((a) => `[${a}]`), ...opts].join(
    ' ',
  );
}

function usage(): string {
  const lines = ['usage: rolelink <command> [arguments] [--json]', '', 'commands:'];
  for (const c of commands) {
    lines.push(`  ${syntax(c)}`, `      ${c.summary}`);
    if (c.example) lines.push(`      e.g. ${c.example}`);
  }
  lines.push('', 'rolelink <command> --help shows one command in full.');
  return lines.join('\n');
}

/** `rolelink <command> --help`: its syntax, summary, example, options and details. */
function commandHelp(c: Command): string {
  const lines = [`usage: rolelink ${syntax(c)} [--json]`, '', c.summary];
  if (c.example) lines.push(`e.g. rolelink ${c.example}`);
  const options = Object.entries(c.options ?? {});
  if (options.length) lines.push('', 'options:', ...options.map(([name, o]) => `  --${name}  ${o.description}`));
  const details = c.details?.() ?? [];
  if (details.length) lines.push('', ...details);
  return lines.join('\n');
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  for (const c of commands) {
    if (c.words.every((w, i) => argv[i] === w)) return { command: c, rest: argv.slice(c.words.length) };
  }
  return null;
}

function configIssues(e: ConfigError): { field: string; message: string }[] {
  return e.problems.map((p) => {
    const colon = p.indexOf(':');
    return { field: p.slice(0, colon), message: p.slice(colon + 1).trim() };
  });
}

/** Runs one command; returns the exit code. Errors print in the API's error shape and exit 1. */
export async function run(
  argv: string[],
  out: (s: string) => void = console.log,
  err: (s: string) => void = console.error,
): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  if (!args.length || args[0] === 'help' || args[0] === '--help') {
    out(usage());
    return args.length ? 0 : 2;
  }
  /**
   * An error prints as the services answer it (`AppError#toBody()`, the one serializer): with `--json`
   * the body; otherwise its message, its `detail` (why a plugin call failed) unless the message says it
   * already, its `errors` one per line so a reader sees which argument is wrong, and the command's hint.
   */
  const fail = (e: AppError, hint?: string) => {
    if (json) out(JSON.stringify(e.toBody()));
    else {
      const detail = e.detail && !e.message.includes(e.detail) ? `\n  ${e.detail}` : '';
      const issues = e.issues ? `\n${formatHuman(e.issues, '  ')}` : '';
      err(`error: ${e.message}${detail}${issues}${hint ? `\n${hint}` : ''}`);
    }
    return 1;
  };
  // `--json` is only the output switch; `--json='{…}'` is the natural misreading of `config set`.
  if (args.some((a) => a.startsWith('--json='))) {
    return fail(
      AppError.badRequest(
        `--json takes no value: it only makes the answer JSON. A configuration is the argument after <roleId>, e.g. rolelink ${CONFIG_SET_EXAMPLE}`,
      ),
    );
  }
  const found = findCommand(args);
  if (!found) return fail(AppError.badRequest(`unknown command: ${args.slice(0, 2).join(' ')} (see rolelink help)`));
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    out(commandHelp(command));
    return 0;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
  } catch (e) {
    return fail(AppError.badRequest((e as Error).message));
  }
  const optional = command.optionalArgs ?? [];
  if (
    parsed.positionals.length < command.args.length ||
    parsed.positionals.length > command.args.length + optional.length
  ) {
    return fail(
      AppError.badRequest(`usage: rolelink ${syntax(command)}${command.example ? ` (e.g. ${command.example})` : ''}`),
    );
  }
  const named = Object.fromEntries(
    [...command.args, ...optional].slice(0, parsed.positionals.length).map((name, i) => [name, parsed.positionals[i]!]),
  );
  let ctx: CliContext | null = null;
  try {
    ctx = new CliContext(loadEnv());
    const relaxed = ctx.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS;
    // Off by default and for tests/local runs only: say so every time it is on (notes/security.md).
    if (relaxed.length && !json)
      err(
        `warning: ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS allows plugin hosts ${relaxed.join(', ')} despite being private`,
      );
    const result = await command.run(ctx, named, parsed.values as Record<string, string | boolean | undefined>);
    out(json ? JSON.stringify(result) : formatHuman(result));
    return command.failed?.(result) ? 1 : 0;
  } catch (e) {
    // A broker that did not answer is named with BROKER_URL and the cause, not as the plugin's failure.
    if (e instanceof BrokerUnavailableError) return fail(e.forOperator(ctx ? brokerUrlSource(ctx.env) : undefined));
    // A bad environment: one issue per variable, as the services' config line names them.
    if (e instanceof ConfigError) return fail(AppError.fields(500, 'invalid configuration', 'config', configIssues(e)));
    const appError = e instanceof AppError ? e : new AppError(500, (e as Error).message);
    return fail(appError, command.hint?.(appError, named, parsed.values as Flags));
  } finally {
    await ctx?.close();
  }
}

// A command's own failures print in the API's error shape (run); runMain is the start every deployable shares.
if (require.main === module) runMain('cli', async () => process.exit(await run(process.argv.slice(2))));
