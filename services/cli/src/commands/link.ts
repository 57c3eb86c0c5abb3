import {
  applyRemovals,
  changeOverrides,
  createLink,
  deleteLink,
  getOverrides,
  linkEventLog,
  lookupMember,
  requestListResend,
  resendLinkEvent,
  resyncLink,
  setLink,
  showLink,
  stripPreview,
} from '@rolelink/admin';
import { removalsThatHold } from '@rolelink/domain';
import { eventLogPrintable } from './link-events';
import { boolFlag, type Command } from '../command';

export const linkCommands: Command[] = [
  {
    words: ['link', 'create'],
    args: ['guildId', 'roleId'],
    options: {
      'plugin-url': { type: 'string', description: "the plugin's HTTPS URL" },
      'keep-members': {
        type: 'boolean',
        description: "keep the role's current holders on the list (default: hand over)",
      },
      'owner-consent': {
        type: 'string',
        description:
          "a privileged role's name, typed: the server owner's consent to link it (Administrator, Manage Server, … ; see docs/cli.md)",
      },
    },
    summary: 'Create a link: register with the plugin (POST /register) and hand it its token',
    run: async (ctx, a, f) => {
      const created = await createLink(ctx.admin(), {
        guildId: a.guildId!,
        roleId: a.roleId!,
        pluginUrl: String(f['plugin-url'] ?? ''),
        keepMembers: f['keep-members'] === true,
        ...(typeof f['owner-consent'] === 'string' ? { ownerConsent: f['owner-consent'] } : {}),
      });
      const note = firstListNote(created.member_mode, created.existing_members);
      return note ? { ...created, first_list: note } : created;
    },
    hint: (e, _a, f) =>
      e.code === 'plugin_register_failed'
        ? `hint: check the plugin against the contract with: rolelink plugin check ${String(f['plugin-url'] ?? '<url>')}`
        : undefined,
  },
  {
    words: ['link', 'delete'],
    args: ['guildId', 'roleId'],
    options: {
      'strip-roles': {
        type: 'boolean',
        description:
          "also remove the role from the members this link's add calls gave it to, never from earlier holders (default: leave them; see `link strip-preview`)",
      },
      'confirm-lockout': {
        type: 'boolean',
        description:
          'strip even when an admin would lose their last Administrator or Manage Server with the role (or that cannot be checked)',
      },
    },
    summary: 'Delete a link: its token stops working at once; DELETE /config is sent to the plugin',
    run: (ctx, a, f) =>
      deleteLink(ctx.admin(), {
        guildId: a.guildId!,
        roleId: a.roleId!,
        stripRoles: f['strip-roles'] === true,
        confirmLockout: f['confirm-lockout'] === true,
      }),
  },
  {
    words: ['link', 'strip-preview'],
    args: ['guildId', 'roleId'],
    summary:
      'What `link delete --strip-roles` would do now: how many members lose the role, a sample by name, and every admin it would lock out (never the owner, who keeps every permission)',
    run: (ctx, a) => stripPreview(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! }),
  },
  {
    words: ['link', 'set'],
    args: ['guildId', 'roleId'],
    options: {
      enabled: { type: 'string', description: 'true or false' },
      trusted: { type: 'string', description: 'true or false (trusted links are never held by the shrink check)' },
    },
    summary: 'Enable or disable a link, or mark it trusted',
    run: (ctx, a, f) =>
      setLink(ctx.admin(), {
        guildId: a.guildId!,
        roleId: a.roleId!,
        enabled: boolFlag(f.enabled, 'enabled'),
        trusted: boolFlag(f.trusted, 'trusted'),
      }),
  },
  {
    words: ['link', 'resync'],
    args: ['guildId', 'roleId'],
    summary:
      'Resync a link now: every failed member is retried at once and the whole list is walked against what the bot applied',
    run: (ctx, a) => resyncLink(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! }),
  },
  {
    words: ['link', 'show'],
    args: ['guildId', 'roleId'],
    summary: 'Show a link: state, counts, limits, sync progress, pending held change',
    run: (ctx, a) => showLink(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! }),
  },
  {
    words: ['link', 'member'],
    args: ['guildId', 'roleId', 'userId'],
    summary:
      "One member of a link: listed, synced or held, the platform's last answer, and their recent role changes with cause",
    run: (ctx, a) => lookupMember(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId!, userId: a.userId! }),
  },
  {
    words: ['link', 'overrides'],
    args: ['guildId', 'roleId'],
    options: {
      keep: {
        type: 'string',
        description: 'user ids (comma-separated) who always keep the role, whatever the plugin lists',
      },
      never: { type: 'string', description: 'user ids (comma-separated) who never get the role, even when listed' },
      remove: { type: 'string', description: 'user ids (comma-separated) taken off either override list' },
    },
    summary: 'Show or change the admin overrides of a link ("always keep", "never give"); without flags, shows them',
    example:
      'rolelink link overrides <guild> <role> --keep 123456789012345678 --never 223456789012345678,323456789012345678',
    run: (ctx, a, f) => {
      if (f.keep === undefined && f.never === undefined && f.remove === undefined)
        return getOverrides(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! });
      return changeOverrides(ctx.admin(), {
        guildId: a.guildId!,
        roleId: a.roleId!,
        change: { always: idList(f.keep), never: idList(f.never), remove: idList(f.remove) },
      });
    },
  },
  {
    words: ['link', 'events'],
    args: ['guildId', 'roleId'],
    summary:
      'A link\'s signed events to its plugin (docs/api.md "Events to plugins"): each with its delivery attempts (time, HTTP status or error, latency); `link events resend <eventId>` puts a delivered or dropped one back in the queue',
    example: 'rolelink link events 1100000000000000001 1200000000000000001   |   rolelink link events resend evt_42',
    // `resend` sits where the guild id would: a guild id is digits, so the two never clash.
    run: async (ctx, a) =>
      a.guildId === 'resend'
        ? resendLinkEvent(ctx.admin(), { eventId: a.roleId! })
        : eventLogPrintable(await linkEventLog(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! })),
  },
  {
    words: ['removals', 'apply'],
    args: ['guildId', 'roleId'],
    summary: "The owner's confirmation of the latest held removal: the resent list is accepted for one hour",
    run: (ctx, a) => applyRemovals(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! }),
  },
  {
    words: ['removals', 'request-resend'],
    args: ['guildId', 'roleId'],
    summary:
      'Ask the plugin to resend its list for the applied removal (event list.resend_requested), while the one-hour window is open; a repeat within five minutes queues no second event',
    run: (ctx, a) => requestListResend(ctx.admin(), { guildId: a.guildId!, roleId: a.roleId! }),
  },
];

/** A comma-separated id flag as a list (checked by the admin operation, which names each bad id). */
function idList(value: string | boolean | undefined): string[] {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}

/**
 * What the plugin's first list will be judged against, as POST /register told the plugin
 * (`current_holders`): on a hand-over link the role's holders are the previous list of the shrink check.
 */
export function firstListNote(mode: 'handover' | 'keep', holders: number): string | null {
  if (holders === 0) return null;
  const n = holders.toLocaleString('en-US');
  if (mode === 'keep')
    return `the role's ${n} current holders are on the list; the plugin's lists are judged against it`;
  const fewest = removalsThatHold(holders);
  const held =
    fewest === null ? 'is empty' : `leaves out ${fewest.toLocaleString('en-US')} or more of them, or is empty,`;
  return (
    `judged against the role's ${n} current ${holders === 1 ? 'holder' : 'holders'} (the plugin was told: current_holders ${holders}): ` +
    `a first list that ${held} is held until confirmed (409 confirm_required)`
  );
}
