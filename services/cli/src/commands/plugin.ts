import { readFileSync } from 'node:fs';
import type { Command } from '../command';
import { humanReport, type CheckReport } from '../plugin-check/report';
import { runPluginCheck } from '../plugin-check/run-check';
import { printable } from './config';

export const pluginCommands: Command[] = [
  {
    words: ['plugin', 'check'],
    args: ['url'],
    options: {
      ca: { type: 'string', description: "PEM file of a CA to trust (a local plugin's self-signed certificate)" },
    },
    summary:
      "Conformance check of a plugin server: register with a throw-away token, validate its config schema, submit its defaults (or check its embedded page's framing headers), check /health, then DELETE /config. Exit 1 on any failure",
    example: 'plugin check https://plugin.example.com',
    run: async (ctx, a, flags) => {
      const report = await runPluginCheck(a.url!, {
        allowHosts: ctx.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
        ...(typeof flags.ca === 'string' ? { ca: readFileSync(flags.ca, 'utf8') } : {}),
      });
      return printable(report, humanReport(report));
    },
    failed: (result) => !(result as { toJSON(): CheckReport }).toJSON().ok,
  },
];
