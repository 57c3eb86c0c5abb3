import { createDb, type Db } from '../client/client';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink } from '../../../../test/support/fixtures';
import {
  claimIdempotencyKey,
  collectIdempotencyKeys,
  IDEMPOTENCY_ABANDONED_MS,
  IDEMPOTENCY_TTL_MS,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
} from './idempotency.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const FP = Buffer.from('fingerprint-1');
const FP2 = Buffer.from('fingerprint-2');

async function age(linkId: string, key: string, ms: number): Promise<void> {
  await db.pool.query(
    `UPDATE idempotency_key SET created_at = now() - $3 * interval '1 millisecond' WHERE link_id = $1 AND key = $2`,
    [linkId, key, ms],
  );
}

describe('idempotency repository (idempotency_key)', () => {
  it('claims a new key once; a second claim sees it in progress, then its recorded answer', async () => {
    const { linkId } = await seedLink(db);
    expect(await claimIdempotencyKey(db.pool, linkId, 'k1', FP)).toEqual({ kind: 'claimed' });
    // This pool's connections are alive, so the claim is not abandoned.
    expect(await claimIdempotencyKey(db.pool, linkId, 'k1', FP2)).toEqual({ kind: 'in-progress', fingerprint: FP });
    await recordIdempotentAnswer(db.pool, linkId, 'k1', { status: 200, body: { user_count: 3 }, etag: '"7"' });
    expect(await claimIdempotencyKey(db.pool, linkId, 'k1', FP2)).toEqual({
      kind: 'answered',
      fingerprint: FP,
      answer: { status: 200, body: { user_count: 3 }, etag: '"7"' },
    });
    // Keys are per link.
    const other = await seedLink(db);
    expect(await claimIdempotencyKey(db.pool, other.linkId, 'k1', FP2)).toEqual({ kind: 'claimed' });
  });

  it('frees an unanswered claim on release, but never an answered one', async () => {
    const { linkId } = await seedLink(db);
    await claimIdempotencyKey(db.pool, linkId, 'k2', FP);
    await releaseIdempotencyKey(db.pool, linkId, 'k2');
    expect(await claimIdempotencyKey(db.pool, linkId, 'k2', FP2)).toEqual({ kind: 'claimed' });
    await recordIdempotentAnswer(db.pool, linkId, 'k2', { status: 201, body: null, etag: null });
    await releaseIdempotencyKey(db.pool, linkId, 'k2');
    expect(await claimIdempotencyKey(db.pool, linkId, 'k2', FP)).toMatchObject({ kind: 'answered', fingerprint: FP2 });
  });

  it("takes a claim over once its claimant's connections are gone", async () => {
    const { linkId } = await seedLink(db);
    const claimant: Db = createDb(db.url, { max: 1 });
    expect(await claimIdempotencyKey(claimant.pool, linkId, 'k3', FP)).toEqual({ kind: 'claimed' });
    expect(await claimIdempotencyKey(db.pool, linkId, 'k3', FP2)).toMatchObject({ kind: 'in-progress' });
    await claimant.close();
    // pg_stat_activity drops a backend shortly after its client disconnects: wait for it, not for a time.
    for (;;) {
      const { rows } = await db.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = (SELECT body->>'claimant' FROM idempotency_key WHERE link_id = $1 AND key = 'k3')",
        [linkId],
      );
      if (rows[0]!.n === 0) break;
      await new Promise((r) => setImmediate(r));
    }
    expect(await claimIdempotencyKey(db.pool, linkId, 'k3', FP2)).toEqual({ kind: 'claimed' });
  });

  it('takes over an unanswered claim past the abandon age and an answer past the TTL; collects expired keys', async () => {
    const { linkId } = await seedLink(db);
    await claimIdempotencyKey(db.pool, linkId, 'old-claim', FP);
    await db.pool.query(`UPDATE idempotency_key SET body = NULL WHERE link_id = $1 AND key = 'old-claim'`, [linkId]); // a claim written before claimants were recorded
    await age(linkId, 'old-claim', IDEMPOTENCY_ABANDONED_MS - 60_000);
    expect(await claimIdempotencyKey(db.pool, linkId, 'old-claim', FP2)).toMatchObject({ kind: 'in-progress' });
    await age(linkId, 'old-claim', IDEMPOTENCY_ABANDONED_MS + 60_000);
    expect(await claimIdempotencyKey(db.pool, linkId, 'old-claim', FP2)).toEqual({ kind: 'claimed' });

    await claimIdempotencyKey(db.pool, linkId, 'answered', FP);
    await recordIdempotentAnswer(db.pool, linkId, 'answered', { status: 200, body: {}, etag: null });
    await claimIdempotencyKey(db.pool, linkId, 'expired', FP);
    await recordIdempotentAnswer(db.pool, linkId, 'expired', { status: 200, body: {}, etag: null });
    await age(linkId, 'answered', IDEMPOTENCY_TTL_MS - 60_000);
    await age(linkId, 'expired', IDEMPOTENCY_TTL_MS + 60_000);
    expect(await collectIdempotencyKeys(db.pool)).toBe(1);
    expect(await claimIdempotencyKey(db.pool, linkId, 'answered', FP2)).toMatchObject({ kind: 'answered' });
    expect(await claimIdempotencyKey(db.pool, linkId, 'expired', FP2)).toEqual({ kind: 'claimed' });
  });
});
