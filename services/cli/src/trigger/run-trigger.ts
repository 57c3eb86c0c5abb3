import { randomUUID } from 'node:crypto';
import { parseSnowflake, parseUserId, requestListResend, setLink, type AdminDeps } from '@rolelink/admin';
import { PLUGIN_EVENT_KINDS, type PluginEvent, type RecordedEventKind } from '@rolelink/contracts';
import { linkEventKinds, listEventLog } from '@rolelink/db/events';
import { findPluginLinkByRole } from '@rolelink/db/links';
import { decryptToken, type TokenKeyring } from '@rolelink/domain';
import { PluginCallFailure, PluginHttp } from '@rolelink/plugin-http';
import { signEvent } from '@rolelink/plugin-sdk';
import { AppError } from '@rolelink/runtime';
import { tlsHint } from '../plugin-check/tls-hint';
import { isPlatformKind, platformCause, type PlatformDeps } from './platform-causes';
import { isTriggerKind, TRIGGER_KINDS } from './trigger-kinds';

/** The broker's POST /events timeout, as `rolelink plugin check` uses it. */
const EVENTS_TIMEOUT_MS = 5_000;
/** A user id for samples when `--user` is not given (a valid snowflake no seed uses). */
export const SAMPLE_USER_ID = '123456789012345678';

export type TriggerDeps = {
  admin: () => AdminDeps;
  secretKey: () => TokenKeyring;
  allowHosts: readonly string[];
  /** PEM of a CA to trust for the sample's call (a local plugin's self-signed certificate). */
  ca?: string;
  /** The platform the bot worker uses: the emulator's control API makes the platform kinds real. */
  platform: Omit<PlatformDeps, 'admin'>;
};

export type TriggerInput = { kind: string; guildId: string; roleId: string; userId?: string };

/** What `rolelink trigger` did: how the event was made, and where to follow it. */
export type TriggerResult = {
  kind: RecordedEventKind;
  via: 'admin' | 'platform' | 'sample';
  did: string;
  /** Recorded events (admin path): delivered by the broker, shown by `rolelink link events`. */
  recorded?: { id: string; seq: number; kind: string; state: string }[];
  /** Where to watch a recorded event's delivery. */
  follow?: string;
  /** A sample: its id and the plugin's answer. */
  sent?: { id: string; http_status: number; latency_ms: number };
  real_cause: string;
};

export async function runTrigger(deps: TriggerDeps, input: TriggerInput): Promise<TriggerResult> {
  if (!isTriggerKind(input.kind))
    throw AppError.fields(
      400,
      `Unknown event kind "${input.kind}" (rolelink trigger --help lists them)`,
      'unknown_event_kind',
      [{ field: 'kind', message: `one of ${PLUGIN_EVENT_KINDS.join(', ')}` }],
    );
  const kind = input.kind;
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const userId = input.userId === undefined ? SAMPLE_USER_ID : parseUserId(input.userId, 'user');
  const admin = deps.admin();
  const link = await findPluginLinkByRole(admin.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  // The service sends a plugin only the kinds it asked for: say so rather than send what it never would.
  const kinds = await linkEventKinds(admin.db.pool, link.id);
  if (!kinds.includes(kind))
    throw new AppError(
      409,
      `The plugin did not ask for ${kind} events, so the service would not send one: list it in the plugin's /register answer or /health report (the SDK does for every kind with a handler); it asks for ${kinds.length ? kinds.join(', ') : 'none'}`,
      'event_kind_not_subscribed',
    );
  const spec = TRIGGER_KINDS[kind];
  const base = { kind, real_cause: spec.cause };

  if (kind === 'link.disabled' || kind === 'link.enabled') {
    const want = kind === 'link.enabled';
    const before = await listEventLog(admin.db.pool, link.id, 1);
    await setLink(admin, { guildId, roleId, enabled: want });
    let did = `${want ? 'enabled' : 'disabled'} the link (rolelink link set --enabled ${want})`;
    // Already in that state: set the other one first, as an owner toggling it would, so the event happens.
    if (!(await recordedSince(admin, link.id, before[0]?.seq)).some((e) => e.kind === kind)) {
      await setLink(admin, { guildId, roleId, enabled: !want });
      await setLink(admin, { guildId, roleId, enabled: want });
      did = `the link was already ${want ? 'enabled' : 'disabled'}: ${want ? 'disabled and enabled' : 'enabled and disabled'} it again (rolelink link set)`;
    }
    return {
      ...base,
      via: 'admin',
      did,
      recorded: await recordedSince(admin, link.id, before[0]?.seq),
      follow: followLine(guildId, roleId),
    };
  }

  if (kind === 'list.resend_requested') {
    const before = await listEventLog(admin.db.pool, link.id, 1);
    try {
      await requestListResend(admin, { guildId, roleId });
      return {
        ...base,
        via: 'admin',
        did: 'asked the plugin to resend its list (rolelink removals request-resend)',
        recorded: await recordedSince(admin, link.id, before[0]?.seq),
        follow: followLine(guildId, roleId),
      };
    } catch (e) {
      // No applied removal waits for the list (or the hour is over): the real request is refused, so a sample.
      if (!(e instanceof AppError) || e.status !== 409) throw e;
      const sent = await sendSample(deps, link, kind, userId);
      return { ...base, via: 'sample', did: `sent a signed sample: the real request was refused (${e.message})`, sent };
    }
  }

  let why = '';
  if (isPlatformKind(kind)) {
    const made = await platformCause({ ...deps.platform, admin }, link, kind);
    if (made.via === 'platform') return { ...base, ...made, follow: followLine(guildId, roleId) };
    why = `: ${made.why}`;
  }
  const sent = await sendSample(deps, link, kind, userId);
  return {
    ...base,
    via: 'sample',
    did: `sent a signed sample event (signed as the broker signs, seq 0, not recorded)${why}`,
    sent,
  };
}

const followLine = (guildId: string, roleId: string) =>
  `the plugin broker delivers it within seconds; rolelink link events ${guildId} ${roleId} shows each attempt`;

/** Events recorded for the link after `seq` (the admin path's own), oldest first. */
async function recordedSince(admin: AdminDeps, linkId: string, seq: string | undefined) {
  const log = await listEventLog(admin.db.pool, linkId, 10);
  return log
    .filter((e) => seq === undefined || BigInt(e.seq) > BigInt(seq))
    .reverse()
    .map((e) => ({ id: `evt_${e.id}`, seq: Number(e.seq), kind: e.kind, state: e.state }));
}

/** The sample of `kind` for a link: `seq` 0 and an `evt_trigger_` id, as `rolelink plugin check`'s test event. */
export function sampleEvent(
  kind: RecordedEventKind,
  link: { guild_id: string; role_id: string },
  userId: string = SAMPLE_USER_ID,
  now: Date = new Date(),
): PluginEvent {
  return {
    id: `evt_trigger_${randomUUID()}`,
    type: kind,
    timestamp: now.toISOString(),
    ...link,
    seq: 0,
    data: TRIGGER_KINDS[kind].sample({ userId, now }),
  } as PluginEvent;
}

/** POST {plugin}/events with a sample of `kind`, signed with the link's token as the broker signs. */
async function sendSample(
  deps: TriggerDeps,
  link: { guildId: string; roleId: string; pluginUrl: string; tokenCiphertext: Buffer },
  kind: RecordedEventKind,
  userId: string,
): Promise<NonNullable<TriggerResult['sent']>> {
  const token = decryptToken(link.tokenCiphertext, deps.secretKey());
  const event = sampleEvent(kind, { guild_id: link.guildId, role_id: link.roleId }, userId);
  const body = JSON.stringify(event);
  const http = new PluginHttp({ allowHosts: deps.allowHosts, ...(deps.ca ? { ca: deps.ca } : {}) });
  const url = `${link.pluginUrl.replace(/\/+$/, '')}/events`;
  let answer;
  try {
    answer = await http.request({
      method: 'POST',
      url,
      token,
      rawJson: body,
      headers: { ...signEvent(token, event.id, body) },
      timeoutMs: EVENTS_TIMEOUT_MS,
    });
  } catch (e) {
    if (!(e instanceof PluginCallFailure)) throw e;
    const hint = await tlsHint(e.code, url, deps.ca !== undefined);
    throw AppError.pluginFailure(
      502,
      `Failed to send the sample ${kind} event to the plugin`,
      'plugin_events_failed',
      hint ? `${e.message}; ${hint}` : e.message,
    );
  }
  if (answer.status < 200 || answer.status > 299)
    throw AppError.pluginFailure(
      502,
      `The plugin refused the sample ${kind} event`,
      'plugin_events_refused',
      `plugin answered ${answer.status}: the service would retry the event for 24 h, then drop it`,
    );
  return { id: event.id, http_status: answer.status, latency_ms: Math.round(answer.durationMs) };
}
