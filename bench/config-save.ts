// `pnpm bench config-save [--saves 200]`: what a dashboard config save costs on its way through the plugin
// broker (caller → broker → plugin, the broker validating against the cached form), beside a direct HTTPS
// POST /config to the same plugin made with the broker's own plugin client, in the same run and
// interleaved (ABBA), so the difference is the broker's share. The save is timed from
// where the dashboard's route hands over, after its access check: the caller names the link by guild and
// role and reads nothing itself (before, it read the link's id first). The broker, its caller
// and the test plugin run in this process over real PostgreSQL and Redis (run it through
// scripts/with-services.ts); plugin timeouts are production's.
import os from 'node:os';
import { admin } from './support/bench-db';
import globalSetup from '../test/support/global-setup';
import { DEFAULT_PLUGIN_TIMEOUTS } from '../services/plugin-broker/src/context';
import { startHarness } from '../services/plugin-broker/test/support/harness';
import { json } from '../services/plugin-broker/test/support/test-plugin';

const FORM = {
  version: 1,
  name: 'Levels',
  sections: [
    {
      title: 'Main',
      fields: [
        { type: 'number', key: 'min_level', label: 'Minimum level', validation: { required: true, min: 0, max: 100 } },
      ],
    },
  ],
};

function parseSaves(args: string[]): number {
  const i = args.indexOf('--saves');
  if (i < 0) return 200;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 10 || n > 10_000) throw new Error('--saves takes an integer from 10 to 10000');
  return n;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(args: string[]): Promise<void> {
  const saves = parseSaves(args);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`load average ${load}, ${os.cpus().length} cores, ${saves} saves each way after 20 warm-up pairs`);
  await globalSetup();
  const h = await startHarness({
    timeouts: DEFAULT_PLUGIN_TIMEOUTS,
    deadlines: { register: 7_000, fetchConfig: 7_000, submitConfig: 17_000 },
  });
  try {
    h.plugin.on('GET /config', (_req, res) => json(res, 200, { ...FORM, values: { min_level: 1 } }));
    h.plugin.on('POST /config', (_req, res) => json(res, 200, { ok: true }));
    const link = await h.seedLink();
    const token = link.token;
    const viaBroker = () => h.client.submitConfig(link, { min_level: 5 });
    const direct = () =>
      h.ctx.http.request({
        method: 'POST',
        url: `${link.pluginUrl}/config`,
        token,
        json: { guild_id: link.guildId, role_id: link.roleId, config: { min_level: 5 } },
        timeoutMs: 10_000,
      });
    const timed = async (fn: () => Promise<unknown>): Promise<number> => {
      const began = performance.now();
      await fn();
      return performance.now() - began;
    };
    const times = { broker: [] as number[], direct: [] as number[] };
    for (let i = 0; i < 20; i++) {
      await viaBroker();
      await direct();
    }
    for (let i = 0; i < saves; i++) {
      // ABBA: neither side always runs first (connection and JIT warmth, GC).
      const order = i % 4 === 0 || i % 4 === 3 ? (['broker', 'direct'] as const) : (['direct', 'broker'] as const);
      for (const side of order) times[side].push(await timed(side === 'broker' ? viaBroker : direct));
    }
    const row = (name: string, xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `| ${name} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 95).toFixed(1)} |`;
    };
    console.log('| path | p50 ms | p95 ms |');
    console.log('|---|---|---|');
    console.log(row('direct HTTPS POST /config (broker plugin client)', times.direct));
    console.log(row('config save through the broker', times.broker));
  } finally {
    await h.close();
    await admin(`DROP DATABASE IF EXISTS ${process.env.ROLELINK_TEST_TEMPLATE_DB} WITH (FORCE)`);
  }
}
