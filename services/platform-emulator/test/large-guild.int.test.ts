import type { APIGuild, APIGuildMember } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../src/server';
import { call, control, LARGE_GUILD, largeGuildSeed } from './support/fixtures';

const { id: GUILD, linked: LINKED, bot: BOT_ROLE, start: START, count: COUNT } = LARGE_GUILD;

// How fast seeding and paging are is `pnpm bench emulator`'s to say (docs/benchmarks.md); this file checks
// what they do, so it passes on a machine of any speed or load.
describe('a guild of a million members', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      globalPerSecond: 10_000,
      routeBucket: { limit: 10_000, windowMs: 1000 },
    });
    const res = await control(emulator, 'POST', '/seed', largeGuildSeed([{ userId: '100000000000500000', roles: [] }]));
    expect(res.status).toBe(200);
  });
  afterAll(() => emulator.close());

  it('seeds a million generated members', async () => {
    const guild = await call<APIGuild>(emulator, 'GET', `/guilds/${GUILD}?with_counts=true`);
    expect(guild.body.approximate_member_count).toBe(COUNT + 1);
    const counts = await call<Record<string, number>>(emulator, 'GET', `/guilds/${GUILD}/roles/member-counts`);
    // The explicit member at 100000000000500000 replaced its generated twin without the role.
    expect(counts.body).toEqual({ [LINKED]: COUNT - 1, [BOT_ROLE]: 1 });
  });

  it('pages through a slice in the middle with after and limit=1000 in order', async () => {
    let after = START + 400_000n;
    for (let page = 0; page < 50; page++) {
      const res = await call<APIGuildMember[]>(emulator, 'GET', `/guilds/${GUILD}/members?limit=1000&after=${after}`);
      expect(res.body).toHaveLength(1000);
      const first = BigInt(res.body[0]!.user.id);
      const last = BigInt(res.body.at(-1)!.user.id);
      expect([first, last]).toEqual([after + 1n, after + 1000n]);
      after = last;
    }
  });

  it('answers the last page and the end of the list at the top of the id range', async () => {
    const last = await call<APIGuildMember[]>(
      emulator,
      'GET',
      `/guilds/${GUILD}/members?limit=1000&after=${START + BigInt(COUNT) - 3n}`,
    );
    expect(last.body.map((m) => m.user.id)).toEqual([
      String(START + BigInt(COUNT) - 2n),
      String(START + BigInt(COUNT) - 1n),
      '1000000000000000001',
    ]);
    const none = await call<APIGuildMember[]>(
      emulator,
      'GET',
      `/guilds/${GUILD}/members?limit=1000&after=1000000000000000001`,
    );
    expect(none.body).toEqual([]);
  });

  it('changes roles and members in the middle of the list', async () => {
    const user = String(START + 765_432n);
    expect((await call(emulator, 'DELETE', `/guilds/${GUILD}/members/${user}/roles/${LINKED}`)).status).toBe(204);
    emulator.state.addMember(GUILD, String(START + BigInt(COUNT) + 5n), [LINKED]);
    emulator.state.removeMember(GUILD, String(START + 1n));
    const holders = emulator.state.holders(GUILD, LINKED);
    expect(holders).toHaveLength(COUNT - 3 + 1);
    expect(holders.slice(0, 2)).toEqual([String(START), String(START + 2n)]);
    expect(holders).not.toContain(user);
  });
});
