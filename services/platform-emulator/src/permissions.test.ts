import { PermissionFlagsBits } from 'discord-api-types/v10';
import { GuildState } from './guild-state';
import { ALL_PERMISSIONS, guildPermissions } from './permissions';

const BOT = '1000000000000000001';
const guild = new GuildState(
  {
    id: '510000000000000001',
    ownerId: '610000000000000001',
    roles: [
      { id: '510000000000000001', position: 0, permissions: PermissionFlagsBits.ViewChannel.toString() },
      { id: '511000000000000001', position: 1, permissions: PermissionFlagsBits.ManageGuild.toString() },
      {
        id: '511000000000000002',
        position: 2,
        permissions: (PermissionFlagsBits.Administrator | PermissionFlagsBits.KickMembers).toString(),
      },
      {
        id: '511000000000000003',
        position: 3,
        permissions: (PermissionFlagsBits.ManageRoles | PermissionFlagsBits.ViewAuditLog).toString(),
      },
    ],
    botRoleId: '511000000000000003',
    members: [
      { userId: '610000000000000002', roles: ['511000000000000001'] },
      { userId: '610000000000000003', roles: ['511000000000000002'] },
    ],
    generateMembers: { count: 2, startId: '700000000000000000' },
  },
  BOT,
);

describe('guildPermissions', () => {
  it('takes every permission bit the platform defines as "all"', () => {
    for (const bit of Object.values(PermissionFlagsBits)) expect(ALL_PERMISSIONS & bit).toBe(bit);
    expect(ALL_PERMISSIONS & PermissionFlagsBits.ManageGuild).toBe(0x20n);
  });

  it('gives the owner every bit even without being a member', () => {
    expect(guild.members.has(610000000000000001n)).toBe(false);
    expect(guildPermissions(guild, '610000000000000001')).toBe(ALL_PERMISSIONS);
  });

  it("ORs @everyone with the member's roles, and turns Administrator into every bit", () => {
    expect(guildPermissions(guild, '610000000000000002')).toBe(
      PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageGuild,
    );
    expect(guildPermissions(guild, '610000000000000003')).toBe(ALL_PERMISSIONS);
    expect(guildPermissions(guild, '700000000000000001')).toBe(PermissionFlagsBits.ViewChannel);
    expect(guildPermissions(guild, BOT)).toBe(
      PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageRoles | PermissionFlagsBits.ViewAuditLog,
    );
  });

  it('answers undefined for someone who is not in the guild', () => {
    expect(guildPermissions(guild, '699999999999999999')).toBeUndefined();
  });
});
