// `pnpm bench emulator`: the platform emulator at a million members — how long seeding takes (the limit the
// old large-guild test asserted: 3 s) and what 50 member pages of 1,000 cost against a bare node:http server
// sending the same bytes, measured in the same run (a figure means something only as that ratio here).
// These timings moved out of services/platform-emulator/test/large-guild.int.test.ts:
// a test asserts what happens, a benchmark how fast.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { startEmulator } from '@rolelink/platform-emulator';
import { LARGE_GUILD, largeGuildSeed } from '../services/platform-emulator/test/support/fixtures';

const { id: GUILD, start: START, count: COUNT } = LARGE_GUILD;
const PAGES = 50;
const SEED_LIMIT_MS = 3_000;

async function pages(base: string, headers: Record<string, string>): Promise<number> {
  let after = START + 400_000n;
  const began = performance.now();
  for (let page = 0; page < PAGES; page++) {
    const res = await fetch(`${base}/guilds/${GUILD}/members?limit=1000&after=${after}`, { headers });
    const body = (await res.json()) as { user: { id: string } }[];
    if (body.length !== 1000) throw new Error(`page ${page}: ${body.length} members`);
    after = BigInt(body.at(-1)!.user.id);
  }
  return performance.now() - began;
}

export async function run(): Promise<void> {
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  const emulator = await startEmulator({
    port: 0,
    globalPerSecond: 10_000,
    routeBucket: { limit: 10_000, windowMs: 1000 },
  });
  const began = performance.now();
  emulator.state.seed(largeGuildSeed());
  const seedMs = performance.now() - began;

  // The platform's edge refuses a request without a client's User-Agent (`DiscordBot ($url, $versionNumber)`).
  const headers = {
    Authorization: `Bot ${emulator.botToken}`,
    'User-Agent': 'DiscordBot (https://github.com/rolelink/bench, 1.0.0)',
  };
  // Baseline: the same 50 answers, rendered once up front, from a bare node:http server.
  const rendered = new Map<string, string>();
  let after = START + 400_000n;
  for (let page = 0; page < PAGES; page++) {
    const res = await fetch(`${emulator.apiBase}/v10/guilds/${GUILD}/members?limit=1000&after=${after}`, { headers });
    const text = await res.text();
    rendered.set(after.toString(), text);
    after = BigInt((JSON.parse(text) as { user: { id: string } }[]).at(-1)!.user.id);
  }
  const bare = http.createServer((req, res) => {
    const key = new URL(req.url ?? '/', 'http://x').searchParams.get('after') ?? '';
    res.writeHead(200, { 'content-type': 'application/json' }).end(rendered.get(key) ?? '[]');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  // ABBA, so neither side gets the warmer half of the run.
  const emu: number[] = [];
  const raw: number[] = [];
  for (const side of ['emu', 'raw', 'raw', 'emu', 'emu', 'raw', 'raw', 'emu']) {
    if (side === 'emu') emu.push(await pages(`${emulator.apiBase}/v10`, headers));
    else raw.push(await pages(bareBase, {}));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`| figure | measured | limit | verdict |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(
    `| seed ${COUNT.toLocaleString('en-US')} generated members | ${Math.round(seedMs).toLocaleString('en-US')} ms | ≤ ${SEED_LIMIT_MS.toLocaleString('en-US')} ms | ${seedMs <= SEED_LIMIT_MS ? 'PASS' : 'FAIL'} |`,
  );
  const ratio = median(emu) / median(raw);
  console.log(
    `| ${PAGES} member pages of 1,000 (median of 4) | ${Math.round(median(emu))} ms (bare node:http: ${Math.round(median(raw))} ms) | — | ${ratio.toFixed(2)}× the bare server |`,
  );
  bare.close();
  await emulator.close();
}
