import { createTestDb, type TestDb } from '../../../../test/support/db';
import { listAudit, purgeAudit, recordAudit } from './admin-audit.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const actor = { id: '90000000000000001', name: 'demo_owner', via: 'dashboard' as const };

describe('admin-audit repository (admin_audit)', () => {
  it('lists a guild’s entries newest first, filtered by action and role, page by page, and never another guild’s', async () => {
    for (const [action, roleId] of [
      ['link_created', '511000000000000001'],
      ['trusted_set', '511000000000000001'],
      ['link_created', '511000000000000002'],
      ['plan_changed', null],
    ] as const) {
      await recordAudit(db.pool, { guildId: '410000000000000001', roleId, actor, action, detail: { n: 1 } });
    }
    await recordAudit(db.pool, {
      guildId: '410000000000000002',
      roleId: null,
      actor,
      action: 'plan_changed',
      detail: null,
    });
    const all = await listAudit(db.pool, '410000000000000001', { limit: 10 });
    expect(all.map((r) => r.action)).toEqual(['plan_changed', 'link_created', 'trusted_set', 'link_created']);
    expect(all[0]).toMatchObject({
      actor_id: actor.id,
      actor_name: 'demo_owner',
      via: 'dashboard',
      detail: { n: 1 },
      role_id: null,
    });
    expect(
      (await listAudit(db.pool, '410000000000000001', { limit: 10, action: 'link_created' })).map((r) => r.role_id),
    ).toEqual(['511000000000000002', '511000000000000001']);
    expect(
      (await listAudit(db.pool, '410000000000000001', { limit: 10, roleId: '511000000000000001' })).map(
        (r) => r.action,
      ),
    ).toEqual(['trusted_set', 'link_created']);
    const page = await listAudit(db.pool, '410000000000000001', { limit: 2 });
    expect(
      (await listAudit(db.pool, '410000000000000001', { limit: 2, before: page[1]!.id })).map((r) => r.id),
    ).toEqual(all.slice(2).map((r) => r.id));
  });

  it('stores and reads back an actor id above 2^63 - 1 exactly (user ids are unsigned 64-bit)', async () => {
    for (const id of ['18446744073709551615', '10000000000000000001', '9223372036854775808']) {
      await recordAudit(db.pool, {
        guildId: '410000000000000004',
        roleId: null,
        actor: { ...actor, id },
        action: 'plan_changed',
        detail: null,
      });
    }
    const rows = await listAudit(db.pool, '410000000000000004', { limit: 10 });
    expect(rows.map((r) => r.actor_id)).toEqual([
      '9223372036854775808',
      '10000000000000000001',
      '18446744073709551615',
    ]);
  });

  it('purges entries past the retention in batches and keeps the rest', async () => {
    await recordAudit(db.pool, {
      guildId: '410000000000000003',
      roleId: null,
      actor,
      action: 'plan_changed',
      detail: null,
    });
    await db.pool.query(
      `INSERT INTO admin_audit (guild_id, actor_name, via, action, at) SELECT 410000000000000003, 'old', 'cli', 'plan_changed', now() - interval '400 days' FROM generate_series(1, 5)`,
    );
    expect(await purgeAudit(db.pool, 365, 2)).toBe(5);
    expect((await listAudit(db.pool, '410000000000000003', { limit: 10 })).map((r) => r.actor_name)).toEqual([
      'demo_owner',
    ]);
  });
});
