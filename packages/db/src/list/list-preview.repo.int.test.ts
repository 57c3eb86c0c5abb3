import { createTestDb, type TestDb } from '../../../../test/support/db';
import { listCounters, seedLink, userIds } from '../../../../test/support/fixtures';
import { latestHeldChange, recordHeldChange } from './held-changes.repo';
import { previewReplace } from './list-preview.repo';
import { replaceList } from './list-replace.repo';
import { addChunk, createUpload } from './uploads.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const linkRow = (linkId: string) => listCounters(db, linkId);

describe('list-preview repository (a dry run of replaceList)', () => {
  it('tells what a replace would add and remove, and whether the shrink rule holds it, writing nothing', async () => {
    const { linkId } = await seedLink(db);
    const full = userIds(20, 1210000000000000000n);
    await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: full }, storedLimit: 100 });
    const before = await linkRow(linkId);
    const next = [...full.slice(0, 5), ...userIds(2, 1220000000000000000n)];
    const preview = await previewReplace(db.pool, { linkId, source: { kind: 'ids', ids: next } });
    expect(preview).toEqual({
      kind: 'preview',
      listVersion: before.version,
      previous: 20,
      next: 7,
      adds: 2,
      removals: 15,
      shrink: { previous: 20, removals: 15, large: true, trusted: false, against: 'list', confirmation: 'none' },
    });
    expect(await linkRow(linkId)).toEqual(before);
    expect(await latestHeldChange(db.pool, linkId)).toBeNull();
    // A second preview on the same pool: the first one's temporary table went with its rollback.
    expect(await previewReplace(db.pool, { linkId, source: { kind: 'ids', ids: full } })).toMatchObject({
      kind: 'preview',
      adds: 0,
      removals: 0,
      shrink: { large: false },
    });
  });

  it('names the confirmation a write would use, without spending it', async () => {
    const { linkId } = await seedLink(db);
    const full = userIds(12, 1230000000000000000n);
    await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: full }, storedLimit: 100 });
    const change = await recordHeldChange(db.pool, linkId, { previous: 12, next: 0, removals: 12, removalSample: [] });
    const source = { kind: 'ids' as const, ids: [] };
    expect(await previewReplace(db.pool, { linkId, source, confirm: change.changeId })).toMatchObject({
      shrink: { large: true, confirmation: 'header' },
    });
    expect(await previewReplace(db.pool, { linkId, source, confirm: change.changeId })).toMatchObject({
      shrink: { confirmation: 'header' },
    });
    expect(await previewReplace(db.pool, { linkId, source, confirm: 'nope' })).toMatchObject({
      shrink: { confirmation: { invalid: 'the confirmation does not name the latest held change' } },
    });
    expect((await latestHeldChange(db.pool, linkId))!.usedAt).toBeNull();
  });

  it('answers not found and version mismatch like the write, and previews an open upload', async () => {
    const { linkId } = await seedLink(db);
    const { version } = await linkRow(linkId);
    const source = { kind: 'ids' as const, ids: userIds(1, 1240000000000000000n) };
    expect(await previewReplace(db.pool, { linkId: '999999999', source })).toEqual({ kind: 'link-not-found' });
    expect(await previewReplace(db.pool, { linkId, source, ifMatch: ['12345'] })).toEqual({
      kind: 'version-mismatch',
      listVersion: version,
    });
    expect(
      await previewReplace(db.pool, {
        linkId,
        source: { kind: 'upload', uploadId: '00000000-0000-4000-8000-000000000000' },
      }),
    ).toEqual({ kind: 'upload-not-found' });
    const upload = await createUpload(db.pool, linkId);
    await addChunk(db.pool, linkId, upload, userIds(3, 1250000000000000000n));
    expect(await previewReplace(db.pool, { linkId, source: { kind: 'upload', uploadId: upload } })).toMatchObject({
      kind: 'preview',
      previous: 0,
      next: 3,
      adds: 3,
      removals: 0,
    });
  });

  it("runs inside a caller's transaction and leaves it as it was", async () => {
    const { linkId } = await seedLink(db);
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await replaceList(c, {
        linkId,
        source: { kind: 'ids', ids: userIds(2, 1260000000000000000n) },
        storedLimit: 100,
      });
      expect(
        await previewReplace(c, { linkId, source: { kind: 'ids', ids: userIds(3, 1260000000000000000n) } }),
      ).toMatchObject({ previous: 2, next: 3, adds: 1 });
      // The caller's own write is still there, and its transaction still usable.
      expect((await c.query('SELECT user_count FROM role_link WHERE id = $1', [linkId])).rows).toEqual([
        { user_count: 2 },
      ]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    expect((await linkRow(linkId)).user_count).toBe(2);
  });
});
