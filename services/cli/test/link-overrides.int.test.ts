import request from 'supertest';
import { startApiHarness, type ApiHarness } from '../../../test/support/api';
import { seedLink, TEST_SECRET_KEY, userIds } from '../../../test/support/fixtures';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';

// `rolelink link overrides` over @rolelink/admin: the same operations as the dashboard's
// overrides section, on a real database and sync queue.

let h: ApiHarness;
let restoreEnv: () => void;

beforeAll(async () => {
  h = await startApiHarness();
  // The links here are seeded by test/support/fixtures, under its key.
  restoreEnv = useCliEnv(h, { ROLELINK_SECRET_KEY: TEST_SECRET_KEY.toString('hex'), ROLELINK_OPERATOR: 'ops-alice' });
});
afterAll(async () => {
  restoreEnv();
  await h.close();
});
beforeEach(() => h.reset());

type CliOut = { statusCode?: number; message?: string; errors?: { field: string; message: string }[] } & Record<
  string,
  unknown
>;

async function cli(...args: string[]): Promise<{ code: number; out: CliOut }> {
  const lines: string[] = [];
  const code = await run(
    [...args, '--json'],
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  return { code, out: JSON.parse(lines.join('\n')) as CliOut };
}

const ids = (list: unknown) => (list as { user_id: string }[]).map((e) => e.user_id);

describe('rolelink link overrides', () => {
  it('adds, shows and removes entries; each change is audited and asks for a sync of the link', async () => {
    const { linkId, guildId: g, roleId: r, token } = await seedLink(h.db);
    const [a, b, c] = userIds(3, 500000000000000000n);
    await request(h.app).post(`/api/role-link/${g}/${r}/users/${b}`).set('Authorization', `Token ${token}`).expect(200);

    await h.syncQueue.obliterate({ force: true }); // the list write's own sync request
    expect((await cli('link', 'overrides', g, r)).out).toEqual({ always: [], never: [], max_per_list: 1000 });
    expect(await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized'])).toEqual([]);
    const set = await cli('link', 'overrides', g, r, '--keep', `${a},${c}`, '--never', b!);
    expect(set.code).toBe(0);
    expect(ids(set.out.always)).toEqual([a, c]);
    expect(ids(set.out.never)).toEqual([b]);
    const jobs = await h.syncQueue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
    expect(jobs.map((j) => j.data as unknown)).toContainEqual(expect.objectContaining({ linkId }));

    // The plugin's list and its API answers are unchanged by overrides.
    const listed = await request(h.app)
      .get(`/api/role-link/${g}/${r}/users`)
      .set('Authorization', `Token ${token}`)
      .expect(200);
    expect(listed.body).toMatchObject({ data: [b], meta: { user_count: 1 } });

    const removed = await cli('link', 'overrides', g, r, '--remove', c!);
    expect(ids(removed.out.always)).toEqual([a]);

    const log = await cli('audit', g, '--action', 'overrides_changed');
    const entries = log.out.entries as { actor: { name: string; via: string }; role_id: string; detail: unknown }[];
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      role_id: r,
      actor: { name: 'ops-alice', via: 'cli' },
      detail: { added: { always: [], never: [] }, removed: { always: [c], never: [] }, after: { always: 1, never: 1 } },
    });
    expect(entries[1]).toMatchObject({
      detail: { added: { always: [a, c], never: [b] }, removed: { always: [], never: [] } },
    });
    // A change that changes nothing writes no entry.
    await cli('link', 'overrides', g, r, '--keep', a!);
    expect(((await cli('audit', g, '--action', 'overrides_changed')).out.entries as unknown[]).length).toBe(2);
  });

  it('refuses a member in both lists, a bad user id and an unknown link with the §7 error shape, changing nothing', async () => {
    const { guildId: g, roleId: r } = await seedLink(h.db);
    const [a] = userIds(1, 600000000000000000n);
    await cli('link', 'overrides', g, r, '--keep', a!);

    const both = await cli('link', 'overrides', g, r, '--never', a!);
    expect(both.code).toBe(1);
    expect(both.out).toMatchObject({
      statusCode: 400,
      message: 'A member cannot be in both "always keep" and "never give"',
    });
    const bad = await cli('link', 'overrides', g, r, '--never', '0123456789012345678');
    expect(bad.out).toMatchObject({ statusCode: 400, message: 'Validation error' });
    expect(JSON.stringify(bad.out)).toContain('leading zero');
    const big = await cli('link', 'overrides', g, r, '--keep', '18446744073709551616');
    expect(JSON.stringify(big.out)).toContain('above 18446744073709551615');
    expect((await cli('link', 'overrides', g, '999', '--keep', a!)).out).toMatchObject({
      statusCode: 404,
      message: 'Role link not found',
    });

    // Moving a member is a removal and an addition in one change.
    const moved = await cli('link', 'overrides', g, r, '--remove', a!, '--never', a!);
    expect(moved.out).toMatchObject({ always: [], never: [{ user_id: a }] });
  });
});
