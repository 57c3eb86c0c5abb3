import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, snowflake } from '../../../../test/support/fixtures';
import { ensureGuild, guildPlanRows, upsertGuildPlan } from './guilds.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('guilds repository (guild)', () => {
  it('creates an unknown guild on the free plan and leaves a known one as it is', async () => {
    const guildId = snowflake();
    expect(await ensureGuild(db.pool, guildId)).toBe('free');
    await upsertGuildPlan(db.pool, { guildId, ownerId: null, plan: 'premium', paidSlots: 2 });
    expect(await ensureGuild(db.pool, guildId)).toBe('premium');
  });

  it('sets a plan, keeping paid slots and owner when they are not given', async () => {
    const guildId = snowflake();
    const owner = snowflake();
    expect(await upsertGuildPlan(db.pool, { guildId, ownerId: owner, plan: 'premium', paidSlots: null })).toEqual({
      owner_id: owner,
      paid_slots: 0,
    });
    expect(await upsertGuildPlan(db.pool, { guildId, ownerId: null, plan: 'premium', paidSlots: 3 })).toEqual({
      owner_id: owner,
      paid_slots: 3,
    });
    expect(await upsertGuildPlan(db.pool, { guildId, ownerId: null, plan: 'free', paidSlots: null })).toEqual({
      owner_id: owner,
      paid_slots: 3,
    });
  });

  it('stores and reads back an owner id above 2^63 - 1 exactly (user ids are unsigned 64-bit)', async () => {
    const guildId = snowflake();
    expect(
      await upsertGuildPlan(db.pool, { guildId, ownerId: '10000000000000000001', plan: 'premium', paidSlots: null }),
    ).toEqual({ owner_id: '10000000000000000001', paid_slots: 0 });
    expect(
      await upsertGuildPlan(db.pool, { guildId, ownerId: '18446744073709551615', plan: 'free', paidSlots: 1 }),
    ).toEqual({ owner_id: '18446744073709551615', paid_slots: 1 });
    expect(await upsertGuildPlan(db.pool, { guildId, ownerId: null, plan: 'premium', paidSlots: null })).toEqual({
      owner_id: '18446744073709551615',
      paid_slots: 1,
    });
  });

  it('reads plan, slots and link count of the known guilds only', async () => {
    const { guildId } = await seedLink(db);
    await seedLink(db, { guildId });
    const rows = await guildPlanRows(db.pool, [guildId, snowflake()]);
    expect(rows).toEqual([{ id: guildId, plan: 'free', paid_slots: 0, links: 2 }]);
  });
});
