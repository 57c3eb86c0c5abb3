import { retryClearedCauses, type AdminDeps } from '@rolelink/admin';
import type { RecordedEventKind } from '@rolelink/contracts';
import { listEventLog } from '@rolelink/db/events';
import { hasUser } from '@rolelink/db/list';
import { findGuildOutage } from '@rolelink/db/sync';
import { AppError } from '@rolelink/runtime';

/**
 * The kinds `rolelink trigger` makes real on the local stack by changing the platform through the emulator's
 * control API (docs/emulator.md), then waiting for the bot worker to meet the change and record the event.
 */
export const PLATFORM_KINDS = ['link.paused', 'link.resumed', 'member.role_restored', 'member.not_in_guild'] as const;
export type PlatformKind = (typeof PLATFORM_KINDS)[number];
export const isPlatformKind = (k: RecordedEventKind): k is PlatformKind =>
  (PLATFORM_KINDS as readonly string[]).includes(k);

/** How long to wait for the worker: its drift poll reads a guild's audit log every 30 s by default. */
export const PLATFORM_WAIT_MS = 180_000;
const POLL_MS = 500;

export type PlatformDeps = {
  admin: AdminDeps;
  /** PLATFORM_API_URL, as the bot worker has it: the emulator's control API is at its origin. */
  apiUrl: string | undefined;
  /** A member's role ids as the bot reads them (the platform client), so the hand edit takes only the linked role. */
  memberRoles: (guildId: string, userId: string) => Promise<string[]>;
  /** A line of progress (stderr), so a wait of a minute is not silence. */
  progress: (line: string) => void;
  waitMs?: number;
};

type Link = { id: string; guildId: string; roleId: string };
type Recorded = { id: string; seq: number; kind: string; state: string };
export type PlatformOutcome = { via: 'platform'; did: string; recorded: Recorded[] } | { via: 'sample'; why: string };

/** The emulator's control API at PLATFORM_API_URL's origin, or why there is none (a real platform). */
export async function emulatorControl(apiUrl: string | undefined): Promise<{ base: string } | { why: string }> {
  if (!apiUrl) return { why: 'PLATFORM_API_URL is not set, so the CLI cannot reach the platform' };
  const base = `${new URL(apiUrl).origin}/_emulator`;
  try {
    const r = await fetch(`${base}/config`, { signal: AbortSignal.timeout(5_000) });
    if (r.ok) return { base };
  } catch {
    // Unreachable: said below.
  }
  return { why: `PLATFORM_API_URL (${apiUrl}) is not the platform emulator (no control API at ${base})` };
}

async function control(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await r.text();
  if (!r.ok)
    throw AppError.pluginFailure(502, `The emulator refused ${method} /_emulator${path}`, 'emulator_refused', text);
  return text ? (JSON.parse(text) as unknown) : null;
}

/** Makes `kind` happen on the emulator and waits until the service records it; a sample where it cannot. */
/** How often member.not_in_guild tries again when the drift repair runs between the hand edit and the leave. */
const NOT_IN_GUILD_ATTEMPTS = 3;

export async function platformCause(deps: PlatformDeps, link: Link, kind: PlatformKind): Promise<PlatformOutcome> {
  const emulator = await emulatorControl(deps.apiUrl);
  if ('why' in emulator) return { via: 'sample', why: emulator.why };
  const ctl = (method: string, path: string, body?: unknown) => control(emulator.base, method, path, body);
  const g = link.guildId;
  const pool = deps.admin.db.pool;
  const since = async () => (await listEventLog(pool, link.id, 1))[0]?.seq;

  if (kind === 'link.paused' || kind === 'link.resumed') {
    const paused = (await findGuildOutage(pool, g)) !== null;
    const steps: string[] = [];
    if (kind === 'link.resumed' && !paused) {
      // Nothing to resume from: pause it first, as a kick would.
      steps.push(await kickAndWait(deps, ctl, link, await since()));
    }
    if (kind === 'link.paused') {
      // Paused already: the bot comes back first, so the kick is news.
      if (paused) steps.push(await botBack(deps, ctl, link, await since()));
      const before = await since();
      steps.push(await kickAndWait(deps, ctl, link, before));
      return { via: 'platform', did: steps.join('; '), recorded: await waitRecorded(deps, link, kind, before) };
    }
    const before = await since();
    steps.push(await botBack(deps, ctl, link, before));
    return { via: 'platform', did: steps.join('; '), recorded: await waitRecorded(deps, link, kind, before) };
  }

  // Both member kinds start from a listed user who holds the role on the platform.
  const { holders } = (await ctl('GET', `/guilds/${g}/roles/${link.roleId}/holders`)) as { holders: string[] };
  let user: string | undefined;
  for (const h of holders)
    if (await hasUser(pool, link.id, h)) {
      user = h;
      break;
    }
  if (!user)
    return {
      via: 'sample',
      why: "no user on the link's list holds the role on the platform yet, so none can have it taken away",
    };
  const others = (await deps.memberRoles(g, user)).filter((r) => r !== link.roleId);
  const edit = `took the role off listed member ${user} as a moderator's hand edit (emulator PUT /members/${user}/roles)`;
  if (kind === 'member.role_restored') {
    const before = await since();
    // A moderator's hand edit takes the role away: the drift poll reads it in the audit log and the bot repairs it.
    await ctl('PUT', `/guilds/${g}/members/${user}/roles`, { roles: others });
    deps.progress(
      `took the role off listed member ${user} by hand (emulator); waiting for drift repair to put it back`,
    );
    return {
      via: 'platform',
      did: `${edit}; the bot's drift repair put it back`,
      recorded: await waitRecorded(deps, link, kind, before),
    };
  }
  // member.not_in_guild: the hand edit, then the member leaves, so the repair's add meets 10007 Unknown Member.
  // A drift poll that runs between the two calls gives the role back instead: then the member (who left
  // holding the role again) comes back with it and the pair is tried again.
  for (let attempt = 1; ; attempt++) {
    const before = await since();
    await ctl('PUT', `/guilds/${g}/members/${user}/roles`, { roles: others });
    await ctl('DELETE', `/guilds/${g}/members/${user}`);
    deps.progress(
      `took the role off listed member ${user} and removed them from the guild (emulator); waiting for the repair's add to fail`,
    );
    try {
      const recorded = await waitRecorded(deps, link, kind, before, {
        kind: 'member.role_restored',
        why: `The bot's drift repair gave ${user} the role back before they left the guild ${NOT_IN_GUILD_ATTEMPTS} times in a row, so no add failed: they are out of the guild; add them back (emulator POST /_emulator/guilds/${g}/members) and run rolelink trigger member.not_in_guild again`,
      });
      // Back in the guild without the role: the bot gives it at its next retry of not-in-server users or reconcile.
      await ctl('POST', `/guilds/${g}/members`, { userId: user, roles: others });
      return {
        via: 'platform',
        did: `${edit} and removed them from the guild (emulator DELETE /members/${user}); the bot's drift repair could not give it back; then added them back without the role (the bot gives it at its next retry or reconcile)`,
        recorded,
      };
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'trigger_raced' || attempt >= NOT_IN_GUILD_ATTEMPTS) throw err;
      await ctl('POST', `/guilds/${g}/members`, { userId: user, roles: [...others, link.roleId] });
      deps.progress(
        `the drift repair ran between the hand edit and the leave; trying again (${attempt + 1} of ${NOT_IN_GUILD_ATTEMPTS})`,
      );
    }
  }
}

/** Puts the bot back and asks the worker to re-check now, as `rolelink doctor` does on seeing it back. */
async function botBack(
  deps: PlatformDeps,
  ctl: (m: string, p: string, b?: unknown) => Promise<unknown>,
  link: Link,
  before: string | undefined,
): Promise<string> {
  await ctl('PATCH', `/guilds/${link.guildId}/rules`, { botInGuild: true });
  await retryClearedCauses(deps.admin, link.guildId, { botInGuild: true });
  deps.progress('put the bot back in the guild (emulator); waiting for the worker to resume the link');
  await waitRecorded(deps, link, 'link.resumed', before);
  return 'put the bot back in the guild (emulator PATCH /rules {"botInGuild": true}) and asked the worker to re-check, which resumed the link';
}

/** Kicks the bot (unless it is out already) and asks for a pass; the worker meets the kick at its next call. */
async function kickAndWait(
  deps: PlatformDeps,
  ctl: (m: string, p: string, b?: unknown) => Promise<unknown>,
  link: Link,
  before: string | undefined,
): Promise<string> {
  await ctl('PATCH', `/guilds/${link.guildId}/rules`, { botInGuild: false });
  await deps.admin.requestSync(link.id);
  deps.progress(
    'removed the bot from the guild (emulator); waiting for the worker to meet it (its drift poll or next sync)',
  );
  await waitRecorded(deps, link, 'link.paused', before);
  return 'removed the bot from the guild (emulator PATCH /rules {"botInGuild": false}); the worker met it and paused the link; the bot stays out until rolelink trigger link.resumed or the emulator puts it back';
}

/**
 * Polls the link's event log (what `rolelink link events` reads) until `kind` is recorded after `before`,
 * printing progress; a clear error when the worker never records it.
 */
async function waitRecorded(
  deps: PlatformDeps,
  link: Link,
  kind: PlatformKind,
  before: string | undefined,
  /** An event that means `kind` will not come (the repair ran before the member left). */
  instead?: { kind: string; why: string },
): Promise<Recorded[]> {
  const deadline = Date.now() + (deps.waitMs ?? PLATFORM_WAIT_MS);
  let said = 0;
  for (;;) {
    const log = await listEventLog(deps.admin.db.pool, link.id, 20);
    const fresh = log.filter((e) => before === undefined || BigInt(e.seq) > BigInt(before)).reverse();
    if (fresh.some((e) => e.kind === kind))
      return fresh.map((e) => ({ id: `evt_${e.id}`, seq: Number(e.seq), kind: e.kind, state: e.state }));
    if (instead && fresh.some((e) => e.kind === instead.kind)) throw new AppError(409, instead.why, 'trigger_raced');
    if (Date.now() > deadline)
      throw new AppError(
        504,
        `The bot worker did not record ${kind} in time: is it running (rolelink link show ${link.guildId} ${link.roleId})?`,
        'trigger_not_recorded',
      );
    if (Date.now() - said > 10_000) {
      deps.progress(`waiting for the bot worker to record ${kind}…`);
      said = Date.now();
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
