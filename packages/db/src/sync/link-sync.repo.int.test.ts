import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedGuild, seedLink, userIds } from '../../../../test/support/fixtures';
import {
  findSyncLink,
  finishPass,
  markIdle,
  recheckRemoval,
  writeJournalProgress,
  writeProgress,
} from './link-sync.repo';
import { loadPass, startPass } from './sync-state.repo';
import { toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

type Counts = {
  applied_count: number;
  pending_count: number;
  sync_done_seq: string;
  sync_rate_per_sec: number | null;
  last_sync_at: Date | null;
};

async function counts(linkId: string): Promise<Counts> {
  const { rows } = await db.pool.query<Counts>(
    'SELECT applied_count, pending_count, sync_done_seq::text, sync_rate_per_sec, last_sync_at FROM role_link WHERE id = $1',
    [linkId],
  );
  return rows[0]!;
}

describe('link-sync repository (role_link, as the sync worker reads and reports it)', () => {
  it("reads a link with its guild's plan and its slot rank among the guild's links", async () => {
    const guildId = await seedGuild(db, { plan: 'premium', paidSlots: 2 });
    const first = await seedLink(db, { guildId });
    const second = await seedLink(db, { guildId, memberMode: 'keep' });
    expect(await findSyncLink(db.pool, first.linkId)).toMatchObject({
      guild_id: guildId,
      role_id: first.roleId,
      plan: 'premium',
      paid_slots: 2,
      rank: 0,
      enabled: true,
      member_mode: 'handover',
      plugin_url: 'https://plugin.example.com',
    });
    expect(await findSyncLink(db.pool, second.linkId)).toMatchObject({
      rank: 1,
      member_mode: 'keep',
      sync_wanted_seq: '0',
    });
    expect(await findSyncLink(db.pool, '999999999')).toBeNull();
  });

  it('rechecks a removal against the live list: listed, and how many listed ids lie below (bounded)', async () => {
    const { linkId } = await seedLink(db, { plan: 'free' });
    const u = userIds(4, 320000000000000000n);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [linkId, u.slice(0, 3)],
    );
    expect(await recheckRemoval(db.pool, linkId, u[2]!, 5)).toEqual({
      enabled: true,
      plan: 'free',
      listed: true,
      below: 2,
    });
    expect(await recheckRemoval(db.pool, linkId, u[2]!, 1)).toMatchObject({ below: 1 });
    expect(await recheckRemoval(db.pool, linkId, u[3]!, 0)).toMatchObject({ listed: false, below: 0 });
    expect(await recheckRemoval(db.pool, '999999999', u[0]!, 0)).toBeNull();
  });

  it('writes interim progress, keeping the last rate when there is none', async () => {
    const { linkId } = await seedLink(db);
    await writeProgress(db.pool, linkId, { applied: 5, pending: 7 }, 2.5);
    await writeProgress(db.pool, linkId, { applied: 6, pending: 6 }, null);
    expect(await counts(linkId)).toMatchObject({ applied_count: 6, pending_count: 6, sync_rate_per_sec: 2.5 });
    expect((await counts(linkId)).last_sync_at).toBeInstanceOf(Date);
  });

  it('finishes a pass: exact counts, the answered sequence (never lowered), no cursor', async () => {
    const { linkId } = await seedLink(db);
    await loadPass(db.pool, linkId);
    await startPass(db.pool, linkId, 4n, 0, { limit: 100, cutoff: null }, 0);
    await finishPass(db.pool, linkId, { passSeq: 4n, desiredSeen: 10, appliedSeen: 8 }, null);
    expect(await counts(linkId)).toMatchObject({ applied_count: 8, pending_count: 2, sync_done_seq: '4' });
    expect((await loadPass(db.pool, linkId)).cursor).toBeNull();
    await finishPass(db.pool, linkId, { passSeq: 3n, desiredSeen: 1, appliedSeen: 3 }, null);
    expect(await counts(linkId)).toMatchObject({ applied_count: 3, pending_count: 0, sync_done_seq: '4' });
    await markIdle(db.pool, linkId, 2n);
    expect((await counts(linkId)).sync_done_seq).toBe('4');
    await markIdle(db.pool, linkId, 6n);
    expect((await counts(linkId)).sync_done_seq).toBe('6');
  });

  it('moves the counts by a journal batch, bounded by the list and the synced limit', async () => {
    const { linkId } = await seedLink(db);
    await db.pool.query('UPDATE role_link SET user_count = 10, applied_count = 4 WHERE id = $1', [linkId]);
    await writeJournalProgress(db.pool, linkId, { seq: 9n, adds: 3, removes: 1, limit: 100, left: 0 });
    expect(await counts(linkId)).toMatchObject({ applied_count: 6, pending_count: 4, sync_done_seq: '9' });
    await writeJournalProgress(db.pool, linkId, { seq: 10n, adds: 9, removes: 0, limit: 8, left: 0 });
    expect(await counts(linkId)).toMatchObject({ applied_count: 8, pending_count: 0, sync_done_seq: '10' });
  });

  it('with admin overrides, rechecks a removal and moves the counts against the target set (overridden listed ids take no listed place)', async () => {
    const { linkId } = await seedLink(db, { plan: 'free' });
    const u = userIds(12, 330000000000000000n);
    const listed = u.slice(0, 10);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [linkId, listed],
    );
    const override = (ids: string[], kind: 'always' | 'never') =>
      db.pool.query(
        `INSERT INTO link_override (link_id, user_id, kind) SELECT $1, ${toStored('x')}, $3 FROM unnest($2::numeric[]) x`,
        [linkId, ids, kind],
      );
    await override([u[0]!], 'never');
    expect(await recheckRemoval(db.pool, linkId, u[5]!, 10)).toMatchObject({ listed: true, below: 5 });
    expect(await recheckRemoval(db.pool, linkId, u[5]!, 10, true)).toMatchObject({ listed: true, below: 4 });

    // A listed member made "never" and removed: 9 to hold, 9 hold (against the list's 10: 1 pending).
    await db.pool.query('UPDATE role_link SET user_count = 10, applied_count = 10 WHERE id = $1', [linkId]);
    await writeJournalProgress(db.pool, linkId, { seq: 3n, adds: 0, removes: 1, limit: 100, left: 0 }, true);
    expect(await counts(linkId)).toMatchObject({ applied_count: 9, pending_count: 0, sync_done_seq: '3' });

    // Never lifted and given back; "always" on a listed and an unlisted member, the unlisted one's add not
    // landed: 2 + min(100 − 2, 9) = 11 to hold, 10 hold (against the list's 10: nothing pending).
    await db.pool.query('DELETE FROM link_override WHERE link_id = $1', [linkId]);
    await override([u[1]!, u[11]!], 'always');
    expect(await recheckRemoval(db.pool, linkId, u[5]!, 10, true)).toMatchObject({ below: 4 });
    await writeJournalProgress(db.pool, linkId, { seq: 4n, adds: 1, removes: 0, limit: 100, left: 0 }, true);
    expect(await counts(linkId)).toMatchObject({ applied_count: 10, pending_count: 1 });

    // More "always" members than the limit: both hold the role, no listed place is left, and the applied
    // count is not cut at the limit (the plain form stores 1); a stopped batch's changes count as pending.
    await writeJournalProgress(db.pool, linkId, { seq: 5n, adds: 0, removes: 8, limit: 1, left: 0 }, true);
    expect(await counts(linkId)).toMatchObject({ applied_count: 2, pending_count: 0 });
    await writeJournalProgress(db.pool, linkId, { seq: 6n, adds: 0, removes: 0, limit: 1, left: 3 }, true);
    expect(await counts(linkId)).toMatchObject({ applied_count: 2, pending_count: 3 });
  });
});
