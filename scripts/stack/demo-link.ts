import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEMO, ROOT } from './config';
import { runStepResult, type StepOptions } from './steps';

export type DemoLinkOutcome = { ok: boolean; line: string };

/**
 * The launcher the summary tells users to run (`./rolelink`). The stack runs it too, so every start
 * proves the printed commands work; through bash, so a copy that lost its executable bit still runs.
 */
const LAUNCHER = path.join(ROOT, 'rolelink');
const rolelink = (args: string[], step: StepOptions) => runStepResult('rolelink', 'bash', [LAUNCHER, ...args], step);

function lastLine(output: string, max = 300): string {
  return output.trim().split('\n').filter(Boolean).slice(-1)[0]?.slice(0, max) ?? '';
}

/**
 * Registers the demo link the way an SRE would, with the rolelink CLI: a premium plan for the demo
 * guild (so the whole demo list syncs), then the link to the example plugin. The service calls the
 * plugin's /register; the plugin then pushes its list through the API.
 */
export async function registerDemoLink(
  pluginUrl: string,
  opts: Omit<StepOptions, 'cwd' | 'timeoutMs'>,
): Promise<DemoLinkOutcome> {
  if (!existsSync(path.join(ROOT, 'services', 'cli', 'src', 'main.ts')) || !existsSync(LAUNCHER)) {
    return {
      ok: false,
      line: 'the rolelink CLI is not built yet (services/cli/src/main.ts, ./rolelink): demo link not created',
    };
  }
  const step = { ...opts, cwd: ROOT, timeoutMs: 60_000, echo: false };
  const plan = await rolelink(['guild', 'set-plan', DEMO.guildId, '--plan', 'premium', '--owner', DEMO.ownerId], step);
  if (plan.code !== 0)
    opts.log(`could not set the demo guild's plan (./rolelink guild set-plan): ${lastLine(plan.output)}`);
  const link = await rolelink(['link', 'create', DEMO.guildId, DEMO.linkedRoleId, '--plugin-url', pluginUrl], step);
  if (link.code === 0)
    return { ok: true, line: `created with the rolelink CLI; the example plugin registered and pushes its list` };
  const why = lastLine(link.output);
  if (/already exists/i.test(why)) return keepOrReplace(pluginUrl, step);
  return { ok: false, line: `./rolelink link create failed (the stack keeps running): ${why || `exit ${link.code}`}` };
}

/**
 * The demo link exists already: kept when it is this stack's plugin's (an earlier run of this stack).
 * One at another plugin URL (this checkout on other ports, or another checkout's stack on a database
 * named in DATABASE_URL) is never adopted: its token went to that plugin, which this stack's plugin
 * never received, so the list would never arrive. It is deleted (the roles it gave stay) and created
 * again, so this stack's plugin registers and pushes its list.
 */
async function keepOrReplace(pluginUrl: string, step: StepOptions): Promise<DemoLinkOutcome> {
  const shown = await rolelink(['link', 'show', DEMO.guildId, DEMO.linkedRoleId, '--json'], step);
  let current: string | undefined;
  try {
    current = (JSON.parse(lastLine(shown.output, Infinity)) as { plugin_url?: string }).plugin_url;
  } catch {
    current = undefined;
  }
  if (current === pluginUrl) return { ok: true, line: 'already exists (kept from an earlier run of this stack)' };
  step.log(
    `the demo link's plugin is ${current ?? 'unknown'}, not this stack's ${pluginUrl}: registering it again with this stack's plugin`,
  );
  const removed = await rolelink(['link', 'delete', DEMO.guildId, DEMO.linkedRoleId], step);
  if (removed.code !== 0)
    return {
      ok: false,
      line: `./rolelink link delete failed (the demo link stays at ${current ?? 'another plugin'}): ${lastLine(removed.output)}`,
    };
  const again = await rolelink(['link', 'create', DEMO.guildId, DEMO.linkedRoleId, '--plugin-url', pluginUrl], step);
  if (again.code === 0)
    return {
      ok: true,
      line: `registered again with this stack's plugin (it was at ${current ?? 'another plugin URL'})`,
    };
  return {
    ok: false,
    line: `./rolelink link create failed (the stack keeps running): ${lastLine(again.output) || `exit ${again.code}`}`,
  };
}

/** `synced`: the platform's holders match the list. `members`: the list's size when last read (null: never read). */
export type DemoSync = { synced: boolean; members: number | null; seconds: number; detail: string };

const DEMO_SHOW_HINT = './rolelink link show failed';

/** The part of `rolelink link show --json` the wait reads. */
type LinkCounts = {
  state: string;
  awaiting_first_list: boolean;
  counts: { user_count: number; synced_count: number; pending_count: number; held_count: number };
  held_change: { removals: number } | null;
};

async function holderCount(emulatorUrl: string): Promise<number | null> {
  try {
    const res = await fetch(`${emulatorUrl}/_emulator/guilds/${DEMO.guildId}/roles/${DEMO.linkedRoleId}/holders`, {
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok ? ((await res.json()) as { holders: string[] }).holders.length : null;
  } catch {
    return null;
  }
}

/**
 * Waits (up to `timeoutMs`) for the demo link's first sync, so `ready` means the demo list is on the
 * role: the plugin's list has arrived, the bot reports nothing pending, and the emulator's holders
 * (which an emulator restart forgets until the start-up reconcile has run) number as many as the synced
 * part of the list. `since` is when the link was created, so the time reported is the whole first sync.
 */
export async function waitForDemoSync(
  emulatorUrl: string,
  opts: Omit<StepOptions, 'cwd' | 'timeoutMs'> & { since: number; timeoutMs?: number; stopped: () => boolean },
): Promise<DemoSync> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const step = { ...opts, cwd: ROOT, timeoutMs: 15_000, echo: false };
  const seconds = () => Math.round((Date.now() - opts.since) / 100) / 10;
  let members: number | null = null;
  let detail = 'the link could not be read yet';
  while (!opts.stopped()) {
    const shown = await rolelink(['link', 'show', DEMO.guildId, DEMO.linkedRoleId, '--json'], step);
    let link: LinkCounts | null;
    try {
      link = shown.code === 0 ? (JSON.parse(lastLine(shown.output, Infinity)) as LinkCounts) : null;
    } catch {
      link = null;
    }
    if (link) {
      const c = link.counts;
      members = c.user_count;
      const synced = c.user_count - c.held_count;
      if (link.state !== 'active')
        return { synced: false, members, seconds: seconds(), detail: `the link is ${link.state}, so it does not sync` };
      if (link.held_change)
        return {
          synced: false,
          members,
          seconds: seconds(),
          detail: `the plugin's list is held: it would remove ${link.held_change.removals} members; confirm it in the dashboard`,
        };
      const holders = await holderCount(emulatorUrl);
      if (!link.awaiting_first_list && c.pending_count === 0 && c.synced_count === synced && holders === synced) {
        return { synced: true, members, seconds: seconds(), detail: `${synced.toLocaleString('en')} members` };
      }
      detail = link.awaiting_first_list
        ? 'the plugin has not pushed its list yet'
        : `${(holders ?? 0).toLocaleString('en')} of ${synced.toLocaleString('en')} members on the role`;
    } else {
      detail = `${DEMO_SHOW_HINT}: ${lastLine(shown.output) || `exit ${shown.code}`}`;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return { synced: false, members, seconds: seconds(), detail };
}
