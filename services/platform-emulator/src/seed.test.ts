import { parseSeed, type SeedGuild } from './seed';

const guild = (patch: Partial<SeedGuild> = {}): { guilds: unknown[] } => ({
  guilds: [
    {
      id: '510000000000000001',
      ownerId: '610000000000000001',
      roles: [{ id: '511000000000000001', position: 1 }],
      botRoleId: '511000000000000001',
      ...patch,
    },
  ],
});

describe('parseSeed', () => {
  it('accepts role permissions and colours and member names', () => {
    const seed = parseSeed(
      guild({
        roles: [{ id: '511000000000000001', position: 1, permissions: '268435488', color: 0xffffff }],
        members: [{ userId: '610000000000000002', username: 'demo_admin', globalName: 'Demo Admin' }],
      }),
    );
    expect(seed.guilds[0]?.roles[0]).toMatchObject({ permissions: '268435488', color: 0xffffff });
    expect(seed.guilds[0]?.members?.[0]).toMatchObject({ username: 'demo_admin', globalName: 'Demo Admin' });
  });

  it('rejects permissions that are not a decimal bitfield and colours outside 0..0xFFFFFF', () => {
    for (const role of [
      { permissions: '0x20' },
      { permissions: '-1' },
      { permissions: '18446744073709551616' },
      { color: 0x1000000 },
      { color: -1 },
      { color: 1.5 },
    ]) {
      expect(() => parseSeed(guild({ roles: [{ id: '511000000000000001', position: 1, ...role }] }))).toThrow(
        /roles\.0\.(permissions|color)/,
      );
    }
  });

  it("rejects empty names and names longer than the platform's 32 characters", () => {
    for (const member of [{ username: '' }, { username: 'x'.repeat(33) }, { globalName: 'y'.repeat(33) }]) {
      expect(() => parseSeed(guild({ members: [{ userId: '610000000000000002', ...member }] }))).toThrow(
        /members\.0\.(username|globalName)/,
      );
    }
  });
});
