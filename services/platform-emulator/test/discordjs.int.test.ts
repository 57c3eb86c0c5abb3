import { API } from '@discordjs/core/http-only';
import { DiscordAPIError, REST, type RateLimitData } from '@discordjs/rest';
import { startEmulator, type RunningEmulator } from '../src/server';
import { GUILD, NOT_A_MEMBER, ROLE, smallSeed, USERS, TEST_USER_AGENT } from './support/fixtures';

describe('discord.js REST client against the emulator', () => {
  let emulator: RunningEmulator;
  let rest: REST;
  let api: API;
  const rateLimited: RateLimitData[] = [];

  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: smallSeed(), roleBucket: { limit: 3, windowMs: 400 } });
    // Sweepers off: their intervals would outlive the test.
    rest = new REST({ api: emulator.apiBase, version: '10', hashSweepInterval: 0, handlerSweepInterval: 0 }).setToken(
      emulator.botToken,
    );
    rest.on('rateLimited', (info) => rateLimited.push(info));
    rateLimited.length = 0;
    api = new API(rest);
  });
  afterEach(() => emulator.close());

  it('reads the bot user, members and role member counts through @discordjs/core', async () => {
    expect(await api.users.get('@me')).toMatchObject({ id: emulator.state.botUserId, bot: true });
    const page = await api.guilds.getMembers(GUILD, { limit: 3, after: USERS[0] });
    expect(page.map((m) => m.user.id)).toEqual([USERS[1], USERS[2], USERS[3]]);
    expect(await api.guilds.getRoleMemberCounts(GUILD)).toMatchObject({ [ROLE.linked]: 2, [ROLE.vip]: 2 });
  });

  it('adds and removes roles with a reason the emulator records', async () => {
    await api.guilds.addRoleToMember(GUILD, USERS[1], ROLE.linked, { reason: 'link 7: in list' });
    expect(emulator.state.holders(GUILD, ROLE.linked)).toEqual([USERS[0], USERS[1], USERS[2]]);
    await api.guilds.removeRoleFromMember(GUILD, USERS[0], ROLE.linked, { reason: 'link 7: left list' });
    expect(emulator.state.holders(GUILD, ROLE.linked)).toEqual([USERS[1], USERS[2]]);
    expect(emulator.state.auditLog(GUILD).map((e) => e.reason)).toEqual(['link 7: in list', 'link 7: left list']);
  });

  it('surfaces the platform error codes as DiscordAPIError', async () => {
    const missing = await api.guilds.addRoleToMember(GUILD, NOT_A_MEMBER, ROLE.linked).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(DiscordAPIError);
    expect(missing).toMatchObject({ status: 404, code: 10007 });
    const above = await api.guilds.addRoleToMember(GUILD, USERS[1], ROLE.moderator).catch((e: unknown) => e);
    expect(above).toMatchObject({ status: 403, code: 50013 });
  });

  it('keeps within the role bucket from the headers alone, without a 429', async () => {
    for (let i = 0; i < 7; i++) await api.guilds.addRoleToMember(GUILD, USERS[i % USERS.length]!, ROLE.vip);
    const stats = emulator.state.stats();
    expect(stats.roleChangesApplied.added + stats.roleChangesApplied.unchanged).toBe(7);
    expect(stats.rateLimited.user).toBe(0);
    // The client waited for the bucket to reset instead of overrunning it.
    expect(rateLimited.length).toBeGreaterThan(0);
  });

  it('waits and retries when another client spent the bucket behind its back', async () => {
    // A window long enough that the other client's requests surely land inside it, even on a busy machine.
    emulator.state.configure({ roleBucket: { limit: 3, windowMs: 1000 } });
    await api.guilds.addRoleToMember(GUILD, USERS[1], ROLE.vip);
    // A second client (another worker) spends the rest of the window.
    for (const user of [USERS[2], USERS[3]]) {
      const res = await fetch(`${emulator.apiBase}/v10/guilds/${GUILD}/members/${user}/roles/${ROLE.vip}`, {
        method: 'PUT',
        headers: { Authorization: `Bot ${emulator.botToken}`, 'User-Agent': TEST_USER_AGENT },
      });
      expect(res.status).toBe(204);
    }
    await api.guilds.addRoleToMember(GUILD, USERS[4], ROLE.vip);
    expect(emulator.state.memberRoles(GUILD, USERS[4])).toContain(ROLE.vip);
    expect(emulator.state.stats().rateLimited.user).toBe(1);
  });
});
