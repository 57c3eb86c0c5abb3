// Which platform the local stack talks to: the emulator it starts itself (the default, with a demo guild),
// or a real one (Discord, or a compatible server) when the caller's environment names it completely.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './config';

/** What a real platform needs, each read by the services under this name (their env.ts). */
export const REAL_PLATFORM_VARS = [
  'PLATFORM_API_URL',
  'PLATFORM_BOT_TOKEN',
  'PLATFORM_OAUTH_CLIENT_ID',
  'PLATFORM_OAUTH_CLIENT_SECRET',
] as const;

export type Platform =
  | { kind: 'emulator' }
  | {
      kind: 'real';
      apiUrl: string;
      botToken: string;
      /** The server `rolelink doctor` checks at start besides those with links (DOCTOR_GUILD_ID). */
      guildId: string | undefined;
      /** The caller's DASHBOARD_PUBLIC_URL (the redirect URI registered on the platform derives from it). */
      dashboardPublicUrl: string | undefined;
    };

/**
 * The emulator when none of REAL_PLATFORM_VARS is set; a real platform when all are. Some but not all is
 * refused, naming the missing ones: a stack that fell back to the emulator would look like it worked.
 */
export function choosePlatform(env: NodeJS.ProcessEnv): Platform {
  const given = REAL_PLATFORM_VARS.filter((name) => (env[name] ?? '') !== '');
  if (given.length === 0) return { kind: 'emulator' };
  const missing = REAL_PLATFORM_VARS.filter((name) => !given.includes(name));
  if (missing.length > 0)
    throw new Error(
      `${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set but not ${missing.join(', ')}: set all four to start against your own platform (docs/real-platform.md), or none for the local emulator`,
    );
  const guildId = env.DOCTOR_GUILD_ID?.trim() || undefined;
  if (guildId !== undefined && !/^\d{17,20}$/.test(guildId))
    throw new Error(`DOCTOR_GUILD_ID=${guildId} is not a server id (17-20 digits)`);
  return {
    kind: 'real',
    apiUrl: env.PLATFORM_API_URL!,
    botToken: env.PLATFORM_BOT_TOKEN!,
    guildId,
    dashboardPublicUrl: env.DASHBOARD_PUBLIC_URL?.trim() || undefined,
  };
}

/**
 * `rolelink doctor` (the CLI from this checkout) with the stack's environment: the bot application's checks,
 * then the given server's and every linked one's. Resolves with its exit code and everything it printed.
 */
export function runDoctor(
  env: NodeJS.ProcessEnv,
  guildId: string | undefined,
): Promise<{ code: number; report: string }> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', path.join(ROOT, 'services/cli/src/main.ts'), 'doctor'];
    if (guildId) args.push(guildId);
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let report = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (report += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (report += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, report: report.trimEnd() }));
  });
}
