import { PLUGIN_EVENT_KINDS, type RecordedEventData, type RecordedEventKind } from '@rolelink/contracts';

/**
 * How `rolelink trigger` makes each event kind happen (docs/cli.md "rolelink trigger"):
 * - `admin`: the product's own admin path runs (the same as `rolelink link set`, `removals request-resend`),
 *   the service records the event and the plugin broker delivers it like any other;
 * - `platform`: on the local stack the CLI makes the cause through the platform emulator's control API and
 *   waits for the bot worker to record the event (platform-causes.ts); against a real platform, a sample;
 * - `sample`: the real cause needs the bot's sync, a plugin's list or time to pass, so the CLI sends the
 *   plugin a sample event signed exactly as the broker signs (`signEvent` of @rolelink/plugin-sdk), with
 *   `seq` 0 like `rolelink plugin check`'s test event, never recorded. `cause` says how to make the real
 *   one on a local stack (docs/emulator.md has the platform side).
 */
export type TriggerKind<K extends RecordedEventKind = RecordedEventKind> = {
  /** One line for `rolelink trigger --help`. */
  when: string;
  via: 'admin' | 'platform' | 'sample';
  /** The real cause, and how to make it locally. */
  cause: string;
  sample: (s: SampleFacts) => RecordedEventData<K>;
};

/** What a sample's data is built from: the user (`--user`, else a sample id) and the time now. */
export type SampleFacts = { userId: string; now: Date };

const HOUR_MS = 3_600_000;

export const TRIGGER_KINDS: { [K in RecordedEventKind]: TriggerKind<K> } = {
  'member.not_in_guild': {
    when: 'a listed user cannot be given the role (not a member, or the account is deleted)',
    via: 'platform',
    cause:
      "the bot adds a listed user who is not in the guild: a moderator's hand edit takes the role off a listed member and they leave (emulator: PUT /_emulator/guilds/:g/members/:u/roles, DELETE /_emulator/guilds/:g/members/:u), drift repair's add fails; they are added back without the role; a sample when no listed user holds the role yet or the platform is not the emulator",
    sample: (s) => ({ user_id: s.userId, reason: 'not_a_member' }),
  },
  'member.role_restored': {
    when: 'someone removed the role by hand and the bot put it back',
    via: 'platform',
    cause:
      "a moderator's hand edit takes the role off a listed member (emulator: PUT /_emulator/guilds/:g/members/:u/roles) and drift repair puts it back; a sample when no listed user holds the role yet or the platform is not the emulator",
    sample: (s) => ({ user_id: s.userId, source: 'drift' }),
  },
  'member.expired': {
    when: "a listed user's membership expired and they left the list",
    via: 'sample',
    cause: 'the plugin lists a user with an expires_at that passes (docs/api.md, memberships that expire)',
    sample: (s) => ({ user_id: s.userId, expired_at: s.now.toISOString() }),
  },
  'removal.held': {
    when: 'a pushed list would remove many holders and waits for the owner',
    via: 'sample',
    cause: 'the plugin pushes a list that drops most of the current holders (spec 3.3)',
    sample: () => ({ change_id: '0', previous: 40, next: 5, removals: 35 }),
  },
  'removal.applied': {
    when: 'the owner applied a held removal: resend the list within the hour',
    via: 'sample',
    cause: 'the owner applies a held removal (rolelink removals apply <guildId> <roleId>)',
    sample: (s) => ({
      change_id: '0',
      removals: 35,
      window_ends_at: new Date(s.now.getTime() + HOUR_MS).toISOString(),
    }),
  },
  'list.resend_requested': {
    when: 'the owner asks the plugin to resend its list for an applied removal',
    via: 'admin',
    cause:
      'rolelink removals request-resend <guildId> <roleId> while an applied removal waits for the list; otherwise a sample',
    sample: (s) => ({ change_id: '0', window_ends_at: new Date(s.now.getTime() + HOUR_MS).toISOString() }),
  },
  'link.paused': {
    when: 'the link stopped syncing (plan change, bot removed, a role the bot may not change)',
    via: 'platform',
    cause:
      'the bot is removed from the guild (emulator: PATCH /_emulator/guilds/:g/rules {"botInGuild": false}) and the worker meets it (its drift poll or next sync); the bot stays out until link.resumed; a sample when the platform is not the emulator',
    sample: () => ({ state: 'blocked', reason: 'bot_not_in_guild' }),
  },
  'link.resumed': {
    when: 'the link can sync again; data names the cause that ended',
    via: 'platform',
    cause:
      'the bot is put back (emulator: PATCH /_emulator/guilds/:g/rules {"botInGuild": true}; a link not paused is paused first, as link.paused does) and the worker re-checks; a sample when the platform is not the emulator',
    sample: () => ({ state: 'up_to_date', reason: null, resolved: 'bot_not_in_guild' }),
  },
  'link.disabled': {
    when: 'the owner disabled the link',
    via: 'admin',
    cause:
      'rolelink link set <guildId> <roleId> --enabled false (an enabled link is disabled; a disabled one is enabled and disabled again)',
    sample: () => ({}),
  },
  'link.enabled': {
    when: 'the owner enabled the link',
    via: 'admin',
    cause:
      'rolelink link set <guildId> <roleId> --enabled true (a disabled link is enabled; an enabled one is disabled and enabled again)',
    sample: () => ({}),
  },
  'link.deleted': {
    when: 'the link was deleted (sent before DELETE /config)',
    via: 'sample',
    cause: 'rolelink link delete <guildId> <roleId> (a sample here, so the link and its token stay)',
    sample: () => ({}),
  },
  'sync.first_completed': {
    when: "the link's first full sync reached the end of the list",
    via: 'sample',
    cause: 'a new link whose plugin pushed its list; the bot worker finishes the first full walk (once per link)',
    sample: () => ({ applied: 25 }),
  },
};

export function isTriggerKind(kind: string): kind is RecordedEventKind {
  return (PLUGIN_EVENT_KINDS as readonly string[]).includes(kind);
}

/** The kinds, one line each, for `rolelink trigger --help`. */
export function triggerKindLines(): string[] {
  const width = Math.max(...PLUGIN_EVENT_KINDS.map((k) => k.length));
  return PLUGIN_EVENT_KINDS.map((k) => {
    const t = TRIGGER_KINDS[k];
    const how = {
      admin: ' (real: admin path)',
      platform: ' (real on the emulator, else a sample)',
      sample: ' (signed sample)',
    };
    return `${k.padEnd(width)}  ${t.when}${how[t.via]}`;
  });
}
