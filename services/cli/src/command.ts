import type { AppError } from '@rolelink/runtime';
import type { CliContext } from './context';

export type Flags = Record<string, string | boolean | undefined>;
export type OptionSpec = Record<string, { type: 'string' | 'boolean'; description: string }>;

/** One `rolelink` command: its words, positional arguments, flags, and what it does. */
export type Command = {
  words: [string, string] | [string];
  args: string[];
  /** Positional arguments after `args` that may be left out (`doctor [guildId]`); absent ones are not in the run's args. */
  optionalArgs?: string[];
  options?: OptionSpec;
  summary: string;
  /** A worked call shown under the summary in `rolelink help` and with a usage error, where the syntax alone misleads. */
  example?: string;
  /** More lines for `rolelink <command> --help` (e.g. the event kinds of `trigger`). */
  details?: () => string[];
  run(ctx: CliContext, args: Record<string, string>, flags: Flags): Promise<unknown>;
  /** What to try next after this error, printed below it (not with `--json`, whose output is the error body). */
  hint?(error: AppError, args: Record<string, string>, flags: Flags): string | undefined;
  /** True when the command's own result means failure (exit 1), e.g. a conformance check that found problems. */
  failed?(result: unknown): boolean;
};

export function boolFlag(value: string | boolean | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`--${name} takes true or false`);
}
