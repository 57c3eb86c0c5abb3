import { Client } from 'pg';
import { startApi, type RunningApi } from '../../bench/support/api-process';
import { auth } from '../support/api';
import { createTestDb, type TestDb } from '../support/db';
import { listOf, seedGuild, seedLink, userIds, type SeededLink } from '../support/fixtures';
import { dropPrefix, REDIS_URL, testQueuePrefix } from '../support/redis';
import { until as pollUntil } from '../support/until';

// A rollout (or an OOM kill) ends the API process in the middle of a commit, which may run
// far longer than the pods' 35 s grace period. The commit's transaction must roll back cleanly (old list,
// upload session still open with its staged IDs) and the client's retry, to a new process, must succeed.
// The commit carries an Idempotency-Key (the SDK's default), whose claim must be free again once the
// killed process's transaction is gone (it stayed 'in progress' for 32 minutes before: 409 to every retry).
// The commit is held at a known point deterministically: the test holds a SHARE lock on link_user, so the
// commit's transaction has begun and waits at its first write of the list — where a long commit spends
// its time — when the API is SIGKILLed (no grace at all: the worst case of a rollout).

const STAGED = 20_000;
const KEY = { 'Idempotency-Key': 'commit-after-kill-1' };

let db: TestDb;
let prefix: string;
let link: SeededLink;
let api: RunningApi | undefined;

const env = () => ({ DATABASE_URL: db.url, REDIS_URL, QUEUE_PREFIX: prefix, ROLELINK_SECRET_KEY: '07'.repeat(32) });
const base = () => `/api/role-link/${link.guildId}/${link.roleId}/users`;
const call = (a: RunningApi, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${a.origin}${path}`, {
    method,
    headers: { ...auth(link.token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Polls a query until `done` holds for its rows (a condition, not a fixed sleep), for at most 60 s. */
const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string) => pollUntil(read, done, what, 60_000);

/** Backends of this test's database with a statement waiting for a lock: the commit, held by the test. */
const waitingOnLock = () =>
  db.pool
    .query<{ pid: number; query: string }>(
      "SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'",
    )
    .then((r) => r.rows);

beforeAll(async () => {
  db = await createTestDb();
  prefix = testQueuePrefix();
  link = await seedLink(db, { guildId: await seedGuild(db, { plan: 'premium' }) });
});
afterAll(async () => {
  await api?.stop();
  await db.drop();
  await dropPrefix(prefix);
});

describe('the API killed in the middle of a commit', () => {
  it('rolls the commit back and the retried commit, to a new process, succeeds', async () => {
    api = await startApi(env());
    const old = userIds(3, 900000000000000000n);
    expect((await call(api, 'PUT', base(), old)).status).toBe(200);
    const { upload_id: uploadId } = (
      (await (await call(api, 'POST', `${base()}/upload`)).json()) as { data: { upload_id: string } }
    ).data;
    expect((await call(api, 'POST', `${base()}/upload/${uploadId}/chunk`, userIds(STAGED))).status).toBe(200);

    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    let orphan: number;
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE link_user IN SHARE MODE');
      // With an Idempotency-Key, as the plugin SDK sends commits: its claim must not outlive the process.
      const first = call(api, 'POST', `${base()}/upload/${uploadId}/commit`, undefined, KEY).then(
        (r) => r.status,
        (err: Error) => err.message,
      );
      const [held] = await until(
        waitingOnLock,
        (rows) => rows.length > 0,
        "the commit's statement waiting on link_user",
      );
      const killed = api.child;
      killed.kill('SIGKILL');
      await new Promise((resolve) => killed.once('exit', resolve));
      // The client saw the connection drop, not an answer.
      expect(await first).toBe('fetch failed');
      // The orphaned backend still waits: PostgreSQL notices a client is gone when it next talks to it.
      orphan = held!.pid;
      expect((await waitingOnLock()).map((r) => r.pid)).toContain(orphan);
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
    // Released, the statement ends, the backend finds its client gone and its transaction is rolled back.
    await until(
      () => db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [orphan]).then((r) => r.rowCount),
      (n) => n === 0,
      "the orphaned commit's backend to end",
    );
    expect(await listOf(db, link.linkId)).toEqual(old);
    const { rows: session } = await db.pool.query<{ closed: boolean; staged: number }>(
      'SELECT closed_at IS NOT NULL AS closed, (SELECT count(*)::int FROM upload_staged WHERE upload_id = $1) AS staged FROM upload_session WHERE id = $1',
      [uploadId],
    );
    expect(session[0]).toEqual({ closed: false, staged: STAGED });

    api = await startApi(env());
    const retried = await call(api, 'POST', `${base()}/upload/${uploadId}/commit`, undefined, KEY);
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { data: { user_count: number } }).data.user_count).toBe(STAGED);
    expect(await listOf(db, link.linkId)).toEqual(userIds(STAGED));
  }, 120_000);
});
