// `pnpm bench api --only post-limit`: the cost of the per-token rate limiter on the API's
// busiest small call, POST /users/:userId, as the throughput with the limiter on against without it.
import { seedLink } from './api-db';
import { cpuMs, startApi } from './api-process';
import { int, loadavg, median, postLoad, type Ctx } from './api-figures';

/** A limit no round reaches: the limiter does all its work (a Redis round trip per request), refuses nothing. */
export const UNREACHED_LIMIT = '1000000000';

/**
 * Two fresh API processes over the same database and Redis, started here: one with the limiter on
 * (`env`, UNREACHED_LIMIT) and one with API_RATE_LIMIT=off. Both fresh, so neither carries the heap and
 * caches of the figures before it (`ctx.api` would). Each process posts distinct new users to a link of
 * its own. The figure is median(on) / median(off), judged against ≥ 90%.
 *
 * Order: rounds go in pairs whose order alternates (off on, on off, off on, …), so neither side always
 * runs right after the other's writes, and the steady warming over the first minute (JIT, PostgreSQL's
 * caches: throughput rose ~25% from the first pair to the third) falls on both alike. With a fixed order
 * (off on, off on, off on) an A/A run of two limiter-off processes read 90.4% once and 95.8% with the
 * order reversed: the order and the warming, not the limiter, set that figure. `control` runs that A/A
 * check: both sides without the limiter, which shows the noise floor of the figure on this machine.
 */
export async function figurePostRateLimit(
  ctx: Ctx,
  env: Record<string, string>,
  seconds: number,
  opts: { rounds?: number; control?: boolean } = {},
): Promise<void> {
  const { pool, log } = ctx;
  const rounds = opts.rounds ?? 6;
  const off = await startApi({ ...env, API_RATE_LIMIT: 'off' }, { form: ctx.form });
  const on = await startApi(opts.control ? { ...env, API_RATE_LIMIT: 'off' } : env, { form: ctx.form });
  const onName = opts.control ? 'off (control)' : 'on';
  try {
    const sides = [
      {
        name: 'off',
        api: off,
        link: await seedLink(pool, ctx.guildId, { trusted: false }),
        rps: [] as number[],
        cpu: [] as number[],
        bad: 0,
      },
      {
        name: onName,
        api: on,
        link: await seedLink(pool, ctx.guildId, { trusted: false }),
        rps: [] as number[],
        cpu: [] as number[],
        bad: 0,
      },
    ];
    // 19-digit IDs starting with 3 (off) and 4 (on): distinct from the other figures' lists (1…) and the
    // POST figure's (2…).
    const loads = new Map(sides.map((side, i) => [side, postLoad(side.api, side.link, String(3 + i))]));
    const cannon = (side: (typeof sides)[number], duration: number) => loads.get(side)!(duration);
    for (const side of sides) {
      const warm = await cannon(side, 5);
      log(`post-limit: warm-up of limiter ${side.name}, ${int(warm['2xx'] / warm.duration)} req/s (not counted)`);
    }
    for (let i = 0; i < rounds; i++) {
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const cpu0 = cpuMs(side.api.pid);
        const res = await cannon(side, seconds);
        const rps = res['2xx'] / res.duration;
        side.rps.push(rps);
        side.cpu.push((cpuMs(side.api.pid) - cpu0) / res['2xx']);
        side.bad += res.errors + res.timeouts + res.non2xx;
        log(
          `post-limit ${i + 1}/${rounds}, limiter ${side.name}: ${int(rps)} req/s, API ${side.cpu.at(-1)!.toFixed(2)} ms CPU/request, p99 ${res.latency.p99} ms, ` +
            `errors ${res.errors}, timeouts ${res.timeouts}, non-2xx ${res.non2xx} (load ${loadavg()})`,
        );
      }
    }
    const [without, withLimit] = sides.map((s) => median(s.rps)) as [number, number];
    // CPU per request is the steadier measure on a shared machine: throughput follows whatever else runs.
    const [cpuOff, cpuOn] = sides.map((s) => median(s.cpu)) as [number, number];
    const ratio = withLimit / without;
    const bad = sides[0]!.bad + sides[1]!.bad;
    ctx.rows.push({
      figure: `POST /users/:userId with the rate limiter ${opts.control ? 'off in both processes (A/A control)' : 'on vs off'}, 32 connections, median of ${rounds} × ${seconds} s each, order alternated by pair${bad ? ` (${bad} errors/non-2xx!)` : ''}`,
      measured:
        `${(ratio * 100).toFixed(1)}% (${onName} ${int(withLimit)} req/s, rounds ${sides[1]!.rps.map(int).join(', ')}; off ${int(without)} req/s, rounds ${sides[0]!.rps.map(int).join(', ')}; ` +
        `API CPU/request ${onName} ${cpuOn.toFixed(2)} ms, off ${cpuOff.toFixed(2)} ms)`,
      limit: opts.control ? 'reported: the noise floor' : '≥ 90% of off',
      verdict: opts.control ? 'info' : ratio >= 0.9 && bad === 0 ? 'PASS' : 'FAIL',
    });
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
