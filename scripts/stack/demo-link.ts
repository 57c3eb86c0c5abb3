import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEMO, ROOT } from './config';
import { runStepResult, type StepOptions } from './steps';

export type DemoLinkOutcome = { ok: boolean; line: string };

function lastLine(output: string): string {
  return output.trim().split('\n').filter(Boolean).slice(-1)[0]?.slice(0, 300) ?? '';
}

/**
 * Registers the demo link the way an SRE would, with the rolelink CLI: a premium plan for the demo
 * guild (so the whole demo list syncs), then the link to the example plugin. The service calls the
 * plugin's /register; the plugin then pushes its list through the API.
 */
export async function registerDemoLink(pluginUrl: string, opts: Omit<StepOptions, 'cwd' | 'timeoutMs'>): Promise<DemoLinkOutcome> {
  if (!existsSync(path.join(ROOT, 'packages', 'cli', 'src', 'main.ts'))) {
    return { ok: false, line: 'the rolelink CLI is not built yet (packages/cli/src/main.ts): demo link not created' };
  }
  const step = { ...opts, cwd: ROOT, timeoutMs: 60_000, echo: false };
  const plan = await runStepResult('rolelink', 'pnpm', ['--silent', 'rolelink', 'guild', 'set-plan', DEMO.guildId, '--plan', 'premium', '--owner', DEMO.ownerId], step);
  if (plan.code !== 0) opts.log(`could not set the demo guild's plan (pnpm rolelink guild set-plan): ${lastLine(plan.output)}`);
  const link = await runStepResult('rolelink', 'pnpm', ['--silent', 'rolelink', 'link', 'create', DEMO.guildId, DEMO.linkedRoleId, '--plugin-url', pluginUrl], step);
  if (link.code === 0) return { ok: true, line: `created with the rolelink CLI; the example plugin registered and pushes its list` };
  const why = lastLine(link.output);
  if (/already exists/i.test(why)) return { ok: true, line: `already exists (kept from an earlier run): ${why}` };
  return { ok: false, line: `pnpm rolelink link create failed (the stack keeps running): ${why || `exit ${link.code}`}` };
}
