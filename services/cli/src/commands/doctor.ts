import { evidenceFromChecks, linkedGuilds, linkedRoles, retryClearedCauses } from '@rolelink/admin';
import { snowflake, type SetupCheck } from '@rolelink/contracts';
import type { SetupReport } from '@rolelink/platform-client';
import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';
import { printable } from './config';

/** `rolelink doctor --json`: the bot application's checks once, then each guild's own. */
export type DoctorReport = SetupReport;

const MARK: Record<SetupCheck['status'], string> = { pass: '✓', warn: '!', fail: '✗', skip: '-' };

/** A check as the CLI prints it: `✓ Title: detail` when it passes, else the finding and the fix on their own lines. */
function humanCheck(c: SetupCheck): [string, unknown] {
  const key = `${MARK[c.status]} ${c.title}`;
  if (c.status === 'pass' || c.status === 'skip') return [key, c.detail];
  const roles = Object.fromEntries(
    (c.roles ?? []).map((r) => [`role ${r.role_name ?? '(deleted)'} (${r.role_id})`, r.fix]),
  );
  // Each role's line carries its own fix; the check's fix would repeat them.
  return [key, c.roles?.length ? { found: c.detail, ...roles } : { found: c.detail, fix: c.fix }];
}

function humanReport(report: DoctorReport, guildNote: string | null): Record<string, unknown> {
  const human: Record<string, unknown> = { 'bot application': Object.fromEntries(report.checks.map(humanCheck)) };
  for (const g of report.guilds) human[`server ${g.guild_id}`] = Object.fromEntries(g.checks.map(humanCheck));
  if (guildNote) human.servers = guildNote;
  const problems = [...report.checks, ...report.guilds.flatMap((g) => g.checks)].filter(
    (c) => c.status === 'fail',
  ).length;
  human.verdict = report.ok
    ? 'ready: every check passes'
    : `NOT ready: ${problems} problem${problems > 1 ? 's' : ''} to fix (each ✗ above says how)`;
  return human;
}

export const doctorCommands: Command[] = [
  {
    words: ['doctor'],
    args: [],
    optionalArgs: ['guildId'],
    summary:
      "Check the bot's setup on the configured platform before going live: the token, the invalid-request budget, and for the guild (default: every guild with links) the bot's presence, the Server Members intent, Manage Roles, each linked role below the bot, the 2FA requirement. Each problem with its fix; exit 1 on any",
    example: 'doctor 123456789012345678',
    run: async (ctx, a) => {
      let guildIds: string[];
      if (a.guildId !== undefined) {
        const r = snowflake.safeParse(a.guildId);
        if (!r.success)
          throw AppError.validation([
            { field: 'guildId', message: r.error.issues[0]?.message ?? 'must be a numeric string' },
          ]);
        guildIds = [r.data];
      } else guildIds = await linkedGuilds(ctx.admin());
      const checker = ctx.setupChecker();
      const linked = [];
      for (const guildId of guildIds)
        linked.push({ guildId, linkedRoleIds: (await linkedRoles(ctx.admin(), guildId)).map((l) => l.roleId) });
      // The dashboard's Check setup reads the same SetupChecker: one evaluation, one text, one invite.
      const report: DoctorReport = await checker.report(linked);
      // A blocking cause the checks no longer see: its links are retried now, not after their back-off.
      for (const g of report.guilds) await retryClearedCauses(ctx.admin(), g.guild_id, evidenceFromChecks(g.checks));
      const note =
        a.guildId === undefined && guildIds.length === 0
          ? 'no guild has a link yet: run rolelink doctor <guildId> to check a server before linking'
          : null;
      return printable(report, humanReport(report, note));
    },
    failed: (result) => !(result as { toJSON(): DoctorReport }).toJSON().ok,
  },
];
