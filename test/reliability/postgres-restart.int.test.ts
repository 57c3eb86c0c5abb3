import { Client } from 'pg';
import { createDb, type Db, toStored } from '@rolelink/db/client';
import { startApi, type RunningApi } from '../../bench/support/api-process';
import { seedGuild, seedLink, userIds, type SeededLink } from '../support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';
import { report, SCALE, type Figure } from './figures';
import { startOwnPostgres, type OwnPostgres } from './own-postgres';

// Faults: PostgreSQL restarted (`pg_ctl restart -m fast`: connections closed, open transactions
// rolled back) in the middle of a 100,000-ID PUT and of a large commit. The client must get a clear 503 in
// the §7 shape — not a hang, not a 500 — the old list must be intact, the commit's staged chunks must be
// intact, and the same request must succeed when retried.

const PUT_IDS = 100_000;
const COMMIT_IDS = SCALE === 'full' ? 1_000_000 : 300_000;
const OLD_IDS = 50_000;

let pg: OwnPostgres;
let db: Db;
let api: RunningApi;
let prefix: string;
let link: SeededLink;
const figures: Figure[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres();
  db = createDb(await pg.migratedDb('rolelink'));
  // Trusted: these replacements drop the whole old list, which the shrink check would otherwise hold.
  link = await seedLink(db, { guildId: await seedGuild(db, { plan: 'premium' }), trusted: true });
  prefix = testQueuePrefix();
  api = await startApi({ DATABASE_URL: pg.url('rolelink'), REDIS_URL, QUEUE_PREFIX: prefix });
}, 180_000);
afterAll(async () => {
  await api?.stop();
  await db?.close();
  pg?.stop();
  await dropPrefix(prefix);
  report(figures);
});

const base = () => `${api.origin}/api/role-link/${link.guildId}/${link.roleId}/users`;
const headers = () => ({ authorization: `Token ${link.token}`, 'content-type': 'application/json' });

/** Restarts PostgreSQL as soon as the API's connection is busy with a statement matching `busy`. */
async function restartWhenBusy(busy: RegExp): Promise<{ restartedAfterMs: number; statement: string }> {
  const started = Date.now();
  const watcher = new Client({ connectionString: pg.adminUrl });
  await watcher.connect();
  try {
    for (;;) {
      const { rows } = await watcher.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE datname = 'rolelink' AND state = 'active' AND pid <> pg_backend_pid()",
      );
      const hit = rows.find((r) => busy.test(r.query));
      if (hit) {
        await watcher.end();
        pg.restart();
        return { restartedAfterMs: Date.now() - started, statement: hit.query.replace(/\s+/g, ' ').slice(0, 60) };
      }
      if (Date.now() - started > 120_000) throw new Error('the statement to interrupt never ran');
      await new Promise((r) => setTimeout(r, 2));
    }
  } catch (err) {
    await watcher.end().catch(() => undefined);
    throw err;
  }
}

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/**
 * The test's own reads after a restart, on a connection opened for them: the pool's idle connections died
 * with the restart, and one can be handed out before its socket reports the termination (on a busy host).
 */
async function count(sql: string, params: unknown[]): Promise<number> {
  const client = new Client({ connectionString: pg.url('rolelink') });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n);
  } finally {
    await client.end();
  }
}
const listCount = () => count('SELECT count(*) AS n FROM link_user WHERE link_id = $1', [link.linkId]);
const listHasAll = async (ids: string[]) =>
  (await count(
    `SELECT count(*) AS n FROM link_user WHERE link_id = $1 AND user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i)`,
    [link.linkId, ids],
  )) === ids.length;

describe('PostgreSQL restarted mid-write', () => {
  it(`a ${PUT_IDS.toLocaleString('en-US')}-ID PUT: clear 503, old list intact, the retry succeeds`, async () => {
    const old = userIds(OLD_IDS, 300000000000000000n);
    expect((await fetch(base(), { method: 'PUT', headers: headers(), body: JSON.stringify(old) })).status).toBe(200);
    const next = userIds(PUT_IDS, 400000000000000000n);

    const sent = Date.now();
    const put = fetch(base(), {
      method: 'PUT',
      headers: headers(),
      body: JSON.stringify(next),
      signal: AbortSignal.timeout(60_000),
    }).then(answer);
    const restart = await restartWhenBusy(/link_user|new_list/i);
    const res = await put;
    const answeredMs = Date.now() - sent;
    const intact = (await listCount()) === OLD_IDS && (await listHasAll(old));

    const retry = await fetch(base(), { method: 'PUT', headers: headers(), body: JSON.stringify(next) }).then(answer);
    const after = await listCount();
    figures.push(
      { scenario: 'postgres-restart', name: 'PUT: statement interrupted', value: restart.statement },
      {
        scenario: 'postgres-restart',
        name: 'PUT: answer during the restart',
        value: `${res.status} ${JSON.stringify(res.body).slice(0, 100)}`,
        goal: '503 in the §7 shape',
        met: res.status === 503,
      },
      { scenario: 'postgres-restart', name: 'PUT: answered after (ms)', value: answeredMs },
      { scenario: 'postgres-restart', name: 'PUT: old list intact', value: String(intact), goal: 'true', met: intact },
      {
        scenario: 'postgres-restart',
        name: 'PUT: retry',
        value: `${retry.status}, ${after} users`,
        goal: `200, ${PUT_IDS} users`,
        met: retry.status === 200 && after === PUT_IDS,
      },
    );
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ statusCode: 503, message: expect.stringMatching(/database/i) });
    expect(intact).toBe(true);
    expect([retry.status, after]).toEqual([200, PUT_IDS]);
  }, 300_000);

  it(`a ${COMMIT_IDS.toLocaleString('en-US')}-ID commit: clear 503, staging intact, the retried commit succeeds`, async () => {
    const upload = (await fetch(`${base()}/upload`, { method: 'POST', headers: headers() }).then(answer)) as {
      status: number;
      body: { data: { upload_id: string } };
    };
    expect(upload.status).toBe(200);
    const id = upload.body.data.upload_id;
    for (let from = 0; from < COMMIT_IDS; from += 100_000) {
      const chunk = userIds(Math.min(100_000, COMMIT_IDS - from), 500000000000000000n + BigInt(from));
      expect(
        (
          await fetch(`${base()}/upload/${id}/chunk`, {
            method: 'POST',
            headers: headers(),
            body: JSON.stringify(chunk),
          })
        ).status,
      ).toBe(200);
    }
    const staged = () => count('SELECT count(*) AS n FROM upload_staged WHERE upload_id = $1', [id]);
    expect(await staged()).toBe(COMMIT_IDS);
    const before = await listCount();

    const sent = Date.now();
    const commit = fetch(`${base()}/upload/${id}/commit`, {
      method: 'POST',
      headers: headers(),
      signal: AbortSignal.timeout(120_000),
    }).then(answer);
    const restart = await restartWhenBusy(/upload_staged|new_list|link_user/i);
    const res = await commit;
    const answeredMs = Date.now() - sent;
    const stagingIntact = (await staged()) === COMMIT_IDS;
    const listIntact = (await listCount()) === before;

    const retry = await fetch(`${base()}/upload/${id}/commit`, { method: 'POST', headers: headers() }).then(answer);
    const after = await listCount();
    figures.push(
      { scenario: 'postgres-restart', name: 'commit: statement interrupted', value: restart.statement },
      {
        scenario: 'postgres-restart',
        name: 'commit: answer during the restart',
        value: `${res.status} ${JSON.stringify(res.body).slice(0, 100)}`,
        goal: '503 in the §7 shape',
        met: res.status === 503,
      },
      { scenario: 'postgres-restart', name: 'commit: answered after (ms)', value: answeredMs },
      {
        scenario: 'postgres-restart',
        name: 'commit: staging and old list intact',
        value: String(stagingIntact && listIntact),
        goal: 'true',
        met: stagingIntact && listIntact,
      },
      {
        scenario: 'postgres-restart',
        name: 'commit: retry',
        value: `${retry.status}, ${after} users`,
        goal: `200, ${COMMIT_IDS} users`,
        met: retry.status === 200 && after === COMMIT_IDS,
      },
    );
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ statusCode: 503, message: expect.stringMatching(/database/i) });
    expect({ stagingIntact, listIntact }).toEqual({ stagingIntact: true, listIntact: true });
    expect([retry.status, after]).toEqual([200, COMMIT_IDS]);
  }, 600_000);
});
