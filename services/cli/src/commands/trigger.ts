import { readFileSync } from 'node:fs';
import { AppError } from '@rolelink/runtime';
import type { Command } from '../command';
import { runTrigger } from '../trigger/run-trigger';
import { triggerKindLines } from '../trigger/trigger-kinds';

export const triggerCommands: Command[] = [
  {
    words: ['trigger'],
    args: ['kind', 'guildId', 'roleId'],
    options: {
      ca: {
        type: 'string',
        description: "PEM file of a CA to trust for a sample's call (a local plugin's certificate)",
      },
      user: { type: 'string', description: "the user id a sample's data names (default 123456789012345678)" },
    },
    summary:
      "Make a plugin event happen for a link, as `stripe trigger` does: through the product's admin path or, on the local stack, the platform emulator where it can, otherwise a sample signed as the broker signs (docs/cli.md)",
    example: 'trigger link.disabled 1100000000000000001 1100000000000000011',
    details: () => ['event kinds:', ...triggerKindLines().map((l) => `  ${l}`)],
    run: (ctx, a, f) =>
      runTrigger(
        {
          admin: () => ctx.admin(),
          secretKey: () => ctx.secretKey(),
          allowHosts: ctx.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
          platform: {
            apiUrl: ctx.env.PLATFORM_API_URL,
            memberRoles: (guildId, userId) => ctx.memberRoles(guildId, userId),
            progress: (line) => process.stderr.write(`${line}\n`),
          },
          ...(typeof f.ca === 'string' ? { ca: readCa(f.ca) } : {}),
        },
        {
          kind: a.kind!,
          guildId: a.guildId!,
          roleId: a.roleId!,
          ...(typeof f.user === 'string' ? { userId: f.user } : {}),
        },
      ),
    hint: (e) =>
      e.code === 'plugin_events_failed' || e.code === 'plugin_events_refused'
        ? 'hint: check the plugin with: rolelink plugin check <url> --ca <file.pem>'
        : undefined,
  },
];

function readCa(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw AppError.field(
      400,
      'ca',
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'bad_request',
    );
  }
}
