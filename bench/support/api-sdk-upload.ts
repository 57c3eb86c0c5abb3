// `pnpm bench api --only sdk`: the plugin SDK pushing the same N-ID list as the upload figure (goal:
// ≤ 1.1× the raw upload's time). The raw figure builds each chunk's JSON body by hand and keeps 4 chunks
// in flight over a keep-alive agent; the SDK gets the list as an iterable of ID strings, one at a time, as
// a plugin reading its own database would hand it over, and does the chunking, the JSON, the 4 in flight
// and the commit itself.
import { RoleLinkClient } from '@rolelink/plugin-sdk';
import { seedLink } from './api-db';
import { RssWindow } from './api-process';
import { int, type Ctx, type UploadTiming } from './api-figures';
import { idAt } from './ids';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

/** Positions [0, n) of a universe of n: the IDs the upload figure sent, generated as they are read. */
function* ids(n: number): Generator<string> {
  for (let j = 0; j < n; j++) yield idAt(j, n);
}

export async function figureSdkUpload(ctx: Ctx, n: number, raw: UploadTiming): Promise<void> {
  const { api, pool, log } = ctx;
  // A link of its own, empty like the upload figure's was, on the same trusted premium guild.
  const link = await seedLink(pool, ctx.guildId, { trusted: true });
  const client = new RoleLinkClient({
    baseUrl: api.origin,
    token: link.token,
    guildId: link.guildId,
    roleId: link.roleId,
  });
  await pool.query('CHECKPOINT'); // the same clean WAL state the raw figure starts from (untimed)
  const apiRss = new RssWindow(api.pid);
  const clientStart = rssMiB();
  let clientPeak = clientStart;
  const sampler = setInterval(() => (clientPeak = Math.max(clientPeak, rssMiB())), 50);
  const t0 = performance.now();
  let outcome;
  try {
    outcome = await client.replaceUsers(ids(n));
  } finally {
    clearInterval(sampler);
  }
  const sdkMs = performance.now() - t0;
  const apiPeak = apiRss.stop();
  if (outcome.held !== null) throw new Error(`SDK replaceUsers was held: ${JSON.stringify(outcome.held)}`);
  if (outcome.userCount !== n || outcome.via !== 'upload')
    throw new Error(
      `SDK replaceUsers answered ${outcome.userCount} users via ${outcome.via}, expected ${n} via upload`,
    );
  const rawMs = raw.chunkMs + raw.commitMs;
  const ratio = sdkMs / rawMs;
  log(
    `sdk: replaceUsers of ${int(n)} IDs in ${s(sdkMs)} (raw chunks ${s(raw.chunkMs)} + commit ${s(raw.commitMs)} = ${s(rawMs)}), ${ratio.toFixed(2)}×`,
  );
  ctx.rows.push(
    {
      figure: `SDK replaceUsers(iterable of ${int(n)} IDs): chunks + commit, ÷ the raw upload's chunks + commit in this run`,
      measured: `${ratio.toFixed(2)}× (SDK ${s(sdkMs)}, ${int(n / (sdkMs / 1000))} IDs/s end to end; raw ${s(rawMs)})`,
      limit: '≤ 1.1×',
      verdict: ratio <= 1.1 ? 'PASS' : 'FAIL',
    },
    {
      figure: 'Peak RSS of the API process during the SDK push (raw upload figure in brackets)',
      measured: `${apiPeak.peakMiB.toFixed(0)} MiB (${raw.apiPeakMiB.toFixed(0)} MiB)`,
      limit: '≤ 512 MB',
      verdict: apiPeak.peakMiB * 1.048576 <= 512 ? 'PASS' : 'FAIL',
    },
    {
      figure: 'RSS growth of the pushing process (the SDK never holds the list)',
      measured: `+${(clientPeak - clientStart).toFixed(0)} MiB (peak ${clientPeak.toFixed(0)} MiB, sampled every 50 ms)`,
      limit: 'reported',
      verdict: 'info',
    },
  );
}
