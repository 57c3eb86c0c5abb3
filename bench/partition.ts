// `pnpm bench partition [--rows 30000000] [--runs 5] [--post-seconds 5] [--vacuum-rounds 2] [--index-cleanup] [--keep-db]`:
// declarative hash partitioning of link_user by link_id, 16 partitions, against today's
// table, in the same run on the same PostgreSQL.
//
// One scratch database, `rolelink_bench_partition_<pid>`, holds both layouts side by side
// (support/partition-layouts.ts): schema `flat` as the migrations make it, schema `part` with link_user
// partitioned and the same key and indexes. Both are loaded with the same `rows` rows: one premium list
// of half of them (link 1) and a power law of 10,000 lists for the other half. Each figure then runs the
// db package's own functions (one pool per layout, its search_path on that layout's schema), alternating
// the layouts (ABBA), and prints each figure beside the other layout's:
// - load and key build (for reference), and the bytes of table, primary key and partial indexes;
// - PUT: replaceList, 100k over a 100k list, 50% changed, on a trusted premium link (what `pnpm bench api`
//   PUTs), each after a VACUUM + CHECKPOINT as that bench does; the VACUUM is timed too: it reclaims
//   the 50,000 rows the layout's previous PUT deleted (PostgreSQL 14+ skips the index pass when under 2% of
//   the table's pages hold dead rows; `--index-cleanup` makes it `VACUUM (INDEX_CLEANUP ON)`, always);
// - GET: streamUserIdsJson of the second largest list (1.1M ids at 30M rows), read to its end;
// - POST: addUsers through the API's group commit (AddBatcher), 32 adds in flight to one new link, a
//   distinct new user each, for `--post-seconds` per round;
// - the expiry sweep's read of due links (linksWithDueExpiries), the one list statement that spans links;
// - VACUUM of the whole table after 1% of its rows, spread over every list, were deleted
//   (`--vacuum-rounds` per layout), then one VACUUM (FREEZE), the anti-wraparound pass;
// - the bytes again at the end.
// This measures the database layer the layouts differ in, not the API process (HTTP, JSON): that part is
// the same over both and `pnpm bench api` measures it. The load average is printed at the start and the end.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { createDb, type Db } from '@rolelink/db/client';
import { linksWithDueExpiries, replaceList, storedIdsCopy, streamUserIdsJson } from '@rolelink/db/list';
import { limitsFor } from '@rolelink/domain';
import type { SyncNotifier } from '@rolelink/queue';
import { AddBatcher } from '../services/api/src/add-batcher';
import { admin, dbUrl } from './support/bench-db';
import { median, percentile } from './support/api-figures';
import { idArray } from './support/ids';
import {
  buildKeys,
  LAYOUT_NAMES,
  LAYOUTS,
  layoutUrl,
  listSizes,
  loadLists,
  migrateInto,
  partitionOf,
  partitionSpread,
  prepareForLoad,
  readKeys,
  seedLinks,
  sizes,
  type Layout,
  type Sizes,
} from './support/partition-layouts';

const STORED_LIMIT = limitsFor('premium').storedUsers;
const POST_CONNECTIONS = 32;

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
const ms = (n: number) => `${n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US')} ms`;
const mb = (bytes: number) =>
  `${bytes < 10e6 ? (bytes / 1e6).toFixed(2) : Math.round(bytes / 1e6).toLocaleString('en-US')} MB`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Run i's order of the two layouts: ABBA, so drift in the machine's load falls on both alike. */
const order = (i: number): readonly Layout[] => (i % 2 === 0 ? LAYOUTS : [...LAYOUTS].reverse());

type Row = { figure: string; flat: string; part: string; ratio: string };

/** One figure of each layout, printed beside each other with their ratio (partitioned ÷ today's). */
function report(
  rows: Row[],
  figure: string,
  flat: number,
  part: number,
  format: (n: number) => string,
  detail = '',
): void {
  const row = { figure, flat: format(flat), part: format(part), ratio: `${(part / flat).toFixed(2)}×` };
  rows.push(row);
  console.log(
    `${figure}: ${LAYOUT_NAMES.flat} ${row.flat}, ${LAYOUT_NAMES.part} ${row.part}, partitioned ÷ today ${row.ratio}${detail ? ` (${detail})` : ''}`,
  );
}

function reportSizes(rows: Row[], when: string, s: Record<Layout, Sizes>): void {
  report(rows, `${when}: table`, s.flat.heap, s.part.heap, mb);
  report(rows, `${when}: primary key`, s.flat.primaryKey, s.part.primaryKey, mb);
  report(rows, `${when}: partial expiry indexes`, s.flat.otherIndexes, s.part.otherIndexes, mb);
  report(rows, `${when}: total`, s.flat.total, s.part.total, mb);
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string', default: '30000000' },
      runs: { type: 'string', default: '5' },
      'post-seconds': { type: 'string', default: '5' },
      'vacuum-rounds': { type: 'string', default: '2' },
      'index-cleanup': { type: 'boolean', default: false },
      'keep-db': { type: 'boolean', default: false },
    },
  });
  const rowsWanted = Number(values.rows);
  const runs = Number(values.runs);
  const postSeconds = Number(values['post-seconds']);
  const vacuumRounds = Number(values['vacuum-rounds']);
  for (const [name, n] of Object.entries({
    rows: rowsWanted,
    runs,
    'post-seconds': postSeconds,
    'vacuum-rounds': vacuumRounds,
  })) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${String(n)}`);
  }
  if (rowsWanted < 1_000_000)
    throw new Error('--rows must be at least 1,000,000 (the power law needs room beside the big list)');

  const lists = listSizes(rowsWanted);
  const loaded = lists.reduce((a, b) => a + b, 0);
  const BIG = 1;
  const GET = 3; // the power law's second largest list
  const PUT = lists.length + 1; // starts empty; the PUT's first list is its 100k
  const POST = lists.length + 2; // starts empty, as `pnpm bench api`'s POST link
  const database = `rolelink_bench_partition_${process.pid}`;
  console.log(
    `link_user: today's table against 16 hash partitions by link_id; ${int(loaded)} rows: link ${BIG} ${int(lists[0]!)} rows, 10,000 lists of ${int(lists.at(-1)!)}–${int(lists[1]!)} rows (Zipf 1.1); load average ${load()} (1 / 5 / 15 min)`,
  );
  await admin(`CREATE DATABASE ${database}`);
  const c = new Client({ connectionString: dbUrl(database) });
  await c.connect();
  const pools: Partial<Record<Layout, Db>> = {};
  const rows: Row[] = [];
  try {
    await c.query(`SET maintenance_work_mem = '512MB'`);
    for (const layout of LAYOUTS) await migrateInto(c, layout);
    const keys = await readKeys(c);
    await prepareForLoad(c, keys);
    const loadMs = { flat: 0, part: 0 };
    const keysMs = { flat: 0, part: 0 };
    for (const layout of LAYOUTS) {
      await seedLinks(c, layout, POST);
      loadMs[layout] = await timed(() => loadLists(c, layout, lists));
      keysMs[layout] = await timed(() => buildKeys(c, layout, keys));
      await c.query(`VACUUM (ANALYZE) ${layout}.link_user`);
      await c.query('CHECKPOINT');
      console.log(
        `${LAYOUT_NAMES[layout]}: loaded in ${ms(loadMs[layout])}, key and indexes built in ${ms(keysMs[layout])} (load ${load()})`,
      );
    }
    report(rows, 'load (one INSERT … SELECT, no index)', loadMs.flat, loadMs.part, ms);
    report(rows, 'primary key and indexes built', keysMs.flat, keysMs.part, ms);
    reportSizes(rows, 'after load + VACUUM (ANALYZE)', { flat: await sizes(c, 'flat'), part: await sizes(c, 'part') });
    const spread = await partitionSpread(c);
    const byRows = [...spread].sort((a, b) => a.rows - b.rows);
    const where = async (link: number) => {
      const name = await partitionOf(c, link);
      const p = spread.find((s) => s.name === name)!;
      return `${name} (${int(p.rows)} rows, ${mb(p.bytes)})`;
    };
    console.log(
      `partitions: ${byRows.map((p) => int(p.rows)).join(', ')} rows (ascending); median ${mb(median(spread.map((p) => p.bytes)))}, largest ${mb(Math.max(...spread.map((p) => p.bytes)))}; ` +
        `the big list's in ${await where(BIG)}, the PUT link's in ${await where(PUT)}, the GET link's in ${await where(GET)}, the POST link's in ${await where(POST)}`,
    );

    for (const layout of LAYOUTS) pools[layout] = createDb(layoutUrl(database, layout), { max: 20 });
    const pool = (layout: Layout) => pools[layout]!.pool;

    // PUT, as `pnpm bench api`: lists A = [0, 100k) and B = [50k, 150k) of 150k ids share 50,000; a
    // trusted link is never held, so each PUT is a real replace.
    const putLists = [storedIdsCopy(idArray(0, 100_000, 150_000)), storedIdsCopy(idArray(50_000, 150_000, 150_000))];
    const puts = { flat: 0, part: 0 };
    const put = async (layout: Layout) => {
      const outcome = await replaceList(pool(layout), {
        linkId: String(PUT),
        source: { kind: 'ids', ids: putLists[puts[layout]++ % 2]! },
        storedLimit: STORED_LIMIT,
      });
      if (outcome.kind !== 'replaced' || outcome.userCount !== 100_000)
        throw new Error(`PUT on ${layout}: ${JSON.stringify(outcome)}`);
    };
    for (const layout of LAYOUTS)
      console.log(
        `put on ${LAYOUT_NAMES[layout]}: first list ${ms(await timed(() => put(layout)))}, warm-up replace ${ms(await timed(() => put(layout)))} (untimed)`,
      );
    const putVacuum = values['index-cleanup'] ? 'VACUUM (INDEX_CLEANUP ON) link_user' : 'VACUUM link_user';
    const putMs: Record<Layout, number[]> = { flat: [], part: [] };
    const vacuumMs: Record<Layout, number[]> = { flat: [], part: [] };
    for (let i = 0; i < runs; i++) {
      for (const layout of order(i)) {
        vacuumMs[layout].push(await timed(() => pool(layout).query(putVacuum)));
        await pool(layout).query('CHECKPOINT');
        putMs[layout].push(await timed(() => put(layout)));
      }
      console.log(
        `put run ${i + 1}/${runs}: VACUUM then PUT, ${LAYOUTS.map((l) => `${l} ${ms(vacuumMs[l].at(-1)!)} + ${ms(putMs[l].at(-1)!)}`).join(', ')} (load ${load()})`,
      );
    }
    report(
      rows,
      `PUT 100k over 100k, 50% changed (replaceList, median of ${runs})`,
      median(putMs.flat),
      median(putMs.part),
      ms,
      `min ${ms(Math.min(...putMs.flat))} / ${ms(Math.min(...putMs.part))}`,
    );
    report(
      rows,
      `${putVacuum} after one PUT (50,000 dead rows, median of ${runs})`,
      median(vacuumMs.flat),
      median(vacuumMs.part),
      ms,
    );

    // GET: the list streamed as the API streams it, read to the end.
    const getRows = lists[GET - 1]!;
    const get = async (layout: Layout) => {
      const { stream, done } = await streamUserIdsJson(pool(layout), String(GET));
      let bytes = 0;
      for await (const chunk of stream) bytes += (chunk as Buffer).length;
      await done;
      if (bytes !== getRows * 22 - 1)
        throw new Error(
          `GET on ${layout}: ${bytes} bytes, expected ${getRows * 22 - 1} ("19 digits", comma-separated)`,
        );
    };
    for (const layout of LAYOUTS) await get(layout); // warm-up, untimed
    const getMs: Record<Layout, number[]> = { flat: [], part: [] };
    for (let i = 0; i < runs; i++) for (const layout of order(i)) getMs[layout].push(await timed(() => get(layout)));
    console.log(`get: ${LAYOUTS.map((l) => `${l} ${getMs[l].map(ms).join(', ')}`).join('; ')} (load ${load()})`);
    report(
      rows,
      `GET ${int(getRows)} ids (streamUserIdsJson, median of ${runs})`,
      median(getMs.flat),
      median(getMs.part),
      ms,
    );

    // POST: the API's group commit over addUsers, 32 adds in flight, a distinct new user each.
    const noQueue = { notify: () => Promise.resolve() } as unknown as SyncNotifier;
    const batchers = {
      flat: new AddBatcher({ pool: pool('flat'), sync: noQueue }),
      part: new AddBatcher({ pool: pool('part'), sync: noQueue }),
    };
    const nextUser = { flat: 0, part: 0 };
    const postRound = async (layout: Layout) => {
      const latencies: number[] = [];
      const start = performance.now();
      const end = start + postSeconds * 1000;
      await Promise.all(
        Array.from({ length: POST_CONNECTIONS }, async () => {
          while (performance.now() < end) {
            const user = `2${String(nextUser[layout]++).padStart(18, '0')}`;
            const t = performance.now();
            const r = await batchers[layout].add(String(POST), user, STORED_LIMIT);
            if (!r.added) throw new Error(`POST on ${layout}: user ${user} not added`);
            latencies.push(performance.now() - t);
          }
        }),
      );
      return { perSecond: latencies.length / ((performance.now() - start) / 1000), latencies };
    };
    const perSecond: Record<Layout, number[]> = { flat: [], part: [] };
    const latencies: Record<Layout, number[]> = { flat: [], part: [] };
    for (let i = 0; i < runs; i++) {
      for (const layout of order(i)) {
        const r = await postRound(layout);
        perSecond[layout].push(r.perSecond);
        for (const l of r.latencies) latencies[layout].push(l); // not push(...): a round can hold 100,000+
      }
      console.log(
        `post round ${i + 1}/${runs}: ${LAYOUTS.map((l) => `${l} ${int(perSecond[l].at(-1)!)}/s`).join(', ')} (load ${load()})`,
      );
    }
    report(
      rows,
      `POST adds/s (addUsers via AddBatcher, ${POST_CONNECTIONS} in flight, median of ${runs} × ${postSeconds} s)`,
      median(perSecond.flat),
      median(perSecond.part),
      int,
    );
    report(rows, 'POST p50 latency', percentile(latencies.flat, 50), percentile(latencies.part, 50), ms);
    report(rows, 'POST p99 latency', percentile(latencies.flat, 99), percentile(latencies.part, 99), ms);

    // The expiry sweep's read: the first 10,000 due rows across all links, in expiry order.
    const now = new Date();
    for (const layout of LAYOUTS) await linksWithDueExpiries(pool(layout), now); // warm-up
    const sweepMs: Record<Layout, number[]> = { flat: [], part: [] };
    for (let i = 0; i < runs; i++)
      for (const layout of order(i)) sweepMs[layout].push(await timed(() => linksWithDueExpiries(pool(layout), now)));
    report(
      rows,
      `expiry sweep: due links of the first 10,000 due rows (linksWithDueExpiries, median of ${runs})`,
      median(sweepMs.flat),
      median(sweepMs.part),
      ms,
    );

    // VACUUM of the whole table after 1% of every list was deleted (a different 1% each round).
    const spreadMs: Record<Layout, number[]> = { flat: [], part: [] };
    for (let i = 0; i < vacuumRounds; i++) {
      for (const layout of order(i)) {
        const { rowCount } = await pool(layout).query(`DELETE FROM link_user WHERE abs(user_id % 100) = ${11 + i}`);
        await pool(layout).query('CHECKPOINT');
        spreadMs[layout].push(await timed(() => pool(layout).query('VACUUM link_user')));
        console.log(
          `vacuum round ${i + 1}/${vacuumRounds} on ${layout}: ${int(rowCount ?? 0)} rows deleted, VACUUM ${ms(spreadMs[layout].at(-1)!)} (load ${load()})`,
        );
      }
    }
    report(
      rows,
      `VACUUM link_user after 1% of every list deleted (median of ${vacuumRounds})`,
      median(spreadMs.flat),
      median(spreadMs.part),
      ms,
    );
    const freezeMs = { flat: 0, part: 0 };
    for (const layout of LAYOUTS) {
      await pool(layout).query('CHECKPOINT');
      freezeMs[layout] = await timed(() => pool(layout).query('VACUUM (FREEZE) link_user'));
    }
    report(
      rows,
      'VACUUM (FREEZE) link_user (every page; today first, then partitioned)',
      freezeMs.flat,
      freezeMs.part,
      ms,
    );
    reportSizes(rows, 'at the end', { flat: await sizes(c, 'flat'), part: await sizes(c, 'part') });

    console.log(`\nload average at the end ${load()}\n`);
    console.log(`| figure | ${LAYOUT_NAMES.flat} | ${LAYOUT_NAMES.part} | partitioned ÷ today |`);
    console.log('| --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.figure} | ${r.flat} | ${r.part} | ${r.ratio} |`);
  } finally {
    for (const layout of LAYOUTS) await pools[layout]?.close();
    await c.end();
    if (values['keep-db']) console.log(`kept database ${database}`);
    else await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}
