import { createTestDb, type TestDb } from '../../../test/support/db';
import { snowflake } from '../../../test/support/fixtures';
import { auditLog } from './audit';
import type { AdminDeps } from './deps';
import { setPlan } from './guilds';
import { testAdminDeps } from '../test/support/deps';

let db: TestDb;
let deps: AdminDeps;
beforeAll(async () => {
  db = await createTestDb();
  deps = testAdminDeps(db);
});
afterAll(() => db.drop());

// Guild owners and dashboard admins are platform users: user ids up to 2^64 - 1, stored exactly.
describe('a plan change by and for users whose ids are above 2^63 - 1', () => {
  it('stores the owner and records the acting admin exactly', async () => {
    const guildId = snowflake();
    const actor = { id: '18446744073709551615', name: 'wide_admin', via: 'dashboard' as const };
    const view = await setPlan(
      { ...deps, actor },
      { guildId, plan: 'premium', slots: 1, ownerId: '10000000000000000001' },
    );
    expect(view).toMatchObject({ guild_id: guildId, owner_id: '10000000000000000001', plan: 'premium', paid_slots: 1 });
    const { entries } = await auditLog(deps, { guildId });
    expect(entries.map((e) => [e.action, e.actor.id, e.detail])).toEqual([
      ['plan_changed', '18446744073709551615', { plan: 'premium', paid_slots: 1, owner_id: '10000000000000000001' }],
    ]);
  });
});
