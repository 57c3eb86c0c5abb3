// `pnpm bench api` POST figure: POST /users/:userId at 32 connections against a bare
// `node:http` server doing the same write (bare-post-server.ts), both measured in the same run with the
// same load generator, so the figure is a ratio to what the machine allows today.
import type autocannon from 'autocannon';
import type { Pool } from 'pg';
import { seedLink } from './api-db';
import { auth, int, judge, loadavg, median, postLoadAt, type Ctx } from './api-figures';
import { cpuMs, RssWindow, startBarePostServer, type RunningApi } from './api-process';

/** The POST goal (docs/benchmarks.md). One run spreads about ±0.07 on a 2-core VM: judge the mean of several. */
const POST_RATIO_GOAL = 0.79;

type Round = {
  xactPerReq: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  bad: number;
  apiMsPerReq: number;
  genMsPerReq: number;
  peakMiB: number;
};
type Side = {
  name: string;
  server: RunningApi;
  cannon: (duration: number) => PromiseLike<autocannon.Result>;
  rounds: Round[];
};

/** Transactions committed in the bench database so far (statistics, flushed within about a second). */
async function commits(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

async function measure(pool: Pool, side: Side, seconds: number): Promise<Round> {
  const xact0 = await commits(pool);
  const rss = new RssWindow(side.server.pid);
  const cpu0 = cpuMs(side.server.pid);
  const gen0 = process.cpuUsage();
  const res = await side.cannon(seconds);
  const cpu = cpuMs(side.server.pid) - cpu0;
  const gen = process.cpuUsage(gen0);
  await new Promise((r) => setTimeout(r, 1100)); // PostgreSQL flushes backend statistics at most once a second
  return {
    xactPerReq: ((await commits(pool)) - xact0) / res['2xx'],
    rps: res['2xx'] / res.duration,
    p50: res.latency.p50,
    p99: res.latency.p99,
    max: res.latency.max,
    bad: res.errors + res.timeouts + res.non2xx,
    apiMsPerReq: cpu / res['2xx'],
    genMsPerReq: (gen.user + gen.system) / 1000 / res['2xx'],
    peakMiB: rss.stop().peakMiB,
  };
}

/** The round of median throughput (its own p99 is the one judged: all rounds are printed). */
function medianRound(rounds: Round[]): Round {
  return [...rounds].sort((a, b) => a.rps - b.rps)[rounds.length >> 1]!;
}

/**
 * `rounds` pairs of `seconds` each after a 3 s warm-up per side. Each pair runs both sides one after the
 * other, the order alternating from pair to pair (bare, API; API, bare; …), so a burst of other work on
 * the machine and the steady warming of the first minute fall on both alike (the post-limit figure
 * found the order alone worth ±3%). Each side posts distinct new users to a link of its own.
 */
export async function figurePost(ctx: Ctx, seconds: number, rounds = 3): Promise<void> {
  const { api, pool, log } = ctx;
  const bare = await startBarePostServer(ctx.databaseUrl, ctx.form);
  try {
    const apiLink = await seedLink(pool, ctx.guildId, { trusted: false });
    const bareLink = await seedLink(pool, ctx.guildId, { trusted: false });
    // 19-digit IDs starting with 2 (API) and 5 (bare): distinct from every other figure's lists.
    const sides: Side[] = [
      {
        name: 'bare',
        server: bare,
        cannon: postLoadAt(bare.origin, `/bare/${bareLink.linkId}/users/`, {}, '5'),
        rounds: [],
      },
      {
        name: 'API',
        server: api,
        cannon: postLoadAt(api.origin, `${apiLink.base}/users/`, auth(apiLink), '2'),
        rounds: [],
      },
    ];
    for (const side of sides) {
      const warm = await side.cannon(3);
      log(`post: warm-up of ${side.name} 3 s, ${int(warm['2xx'] / warm.duration)} req/s (not counted)`);
    }
    for (let i = 0; i < rounds; i++) {
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const r = await measure(pool, side, seconds);
        side.rounds.push(r);
        log(
          `post ${i + 1}/${rounds} ${side.name}: ${int(r.rps)} req/s, latency p50 ${r.p50} ms p99 ${r.p99} ms max ${r.max} ms; errors/timeouts/non-2xx ${r.bad}; ` +
            `CPU per request: server ${r.apiMsPerReq.toFixed(3)} ms, PostgreSQL transactions per request ${r.xactPerReq.toFixed(2)}, load generator ${r.genMsPerReq.toFixed(3)} ms; RSS peak ${r.peakMiB.toFixed(0)} MiB (load ${loadavg()})`,
        );
      }
    }
    const [b, a] = sides.map((side) => medianRound(side.rounds)) as [Round, Round];
    const bad = sides.reduce((t, side) => t + side.rounds.reduce((u, r) => u + r.bad, 0), 0);
    const ratio = median(sides[1]!.rounds.map((r) => r.rps)) / median(sides[0]!.rounds.map((r) => r.rps));
    const list = (side: Side, f: (r: Round) => string) => side.rounds.map(f).join(', ');
    ctx.rows.push(
      {
        figure: `POST /users/:userId ÷ bare node:http server doing the same write, same run, 32 connections, median of ${rounds} × ${seconds} s each, order alternated${bad ? ` (${bad} errors/non-2xx!)` : ''}`,
        measured:
          `${ratio.toFixed(2)} (API ${int(a.rps)} req/s, rounds ${list(sides[1]!, (r) => int(r.rps))}; ` +
          `bare ${int(b.rps)} req/s, rounds ${list(sides[0]!, (r) => int(r.rps))})`,
        limit: `≥ ${POST_RATIO_GOAL} (goal)`,
        verdict: judge(ratio >= POST_RATIO_GOAL && bad === 0),
      },
      {
        figure: 'POST /users/:userId latency p99 of the API’s median round (p50, max; the bare server’s beside it)',
        measured: `${a.p99} ms (p50 ${a.p50} ms, max ${a.max} ms; rounds ${list(sides[1]!, (r) => String(r.p99))} ms; bare p99 ${b.p99} ms)`,
        limit: '≤ 50 ms (goal)',
        verdict: judge(a.p99 <= 50 && bad === 0),
      },
      {
        figure: 'CPU per POST: API process ÷ bare server process (median rounds)',
        measured: `API ${a.apiMsPerReq.toFixed(3)} ms, bare ${b.apiMsPerReq.toFixed(3)} ms (load generator ${a.genMsPerReq.toFixed(3)} ms)`,
        limit: 'reported',
        verdict: 'info',
      },
    );
  } finally {
    await bare.stop();
  }
}
