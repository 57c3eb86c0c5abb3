import { ADMINISTRATOR, MANAGE_ROLES } from './permissions';
import { botPermissions, isPrivileged, privilegedPermissions, roleAccessProblem, type BotFacts } from './role-access';

const guildId = '1000';
function facts(
  over: Partial<{ botBits: bigint; everyone: bigint; managed: boolean; target: number; bot: number }> = {},
): BotFacts {
  return {
    guildId,
    roles: [
      { id: guildId, position: 0, permissions: over.everyone ?? 0n, managed: false },
      { id: 'bot', position: over.bot ?? 5, permissions: over.botBits ?? MANAGE_ROLES, managed: true },
      { id: 'target', position: over.target ?? 2, permissions: 0n, managed: over.managed ?? false },
    ],
    botRoleIds: ['bot'],
  };
}

describe('roleAccessProblem', () => {
  it('allows a plain role below the bot with Manage Roles', () =>
    expect(roleAccessProblem(facts(), 'target')).toBeNull());
  it('needs Manage Roles', () => expect(roleAccessProblem(facts({ botBits: 0n }), 'target')).toBe('no_manage_roles'));
  it('takes Manage Roles from @everyone too', () =>
    expect(roleAccessProblem(facts({ botBits: 0n, everyone: MANAGE_ROLES }), 'target')).toBeNull());
  it('counts Administrator as every permission', () =>
    expect(roleAccessProblem(facts({ botBits: ADMINISTRATOR }), 'target')).toBeNull());
  it('refuses a role at or above the bot’s highest role', () => {
    expect(roleAccessProblem(facts({ target: 5 }), 'target')).toBe('above_bot');
    expect(roleAccessProblem(facts({ target: 6 }), 'target')).toBe('above_bot');
  });
  it('refuses a managed role whatever the permissions', () =>
    expect(roleAccessProblem(facts({ managed: true, botBits: ADMINISTRATOR }), 'target')).toBe('managed'));
  it('refuses the bot’s own role as managed, not as above the bot', () =>
    expect(roleAccessProblem(facts(), 'bot')).toBe('managed'));
  it('refuses @everyone and unknown roles', () => {
    expect(roleAccessProblem(facts(), guildId)).toBe('unknown_role');
    expect(roleAccessProblem(facts(), 'gone')).toBe('unknown_role');
  });
  it('computes effective permissions', () =>
    expect(botPermissions(facts({ botBits: ADMINISTRATOR })) & MANAGE_ROLES).toBe(MANAGE_ROLES));
});

describe('privileged roles', () => {
  it('names each privileged bit', () => {
    expect(privilegedPermissions(ADMINISTRATOR | MANAGE_ROLES)).toEqual(['Administrator', 'Manage Roles']);
    expect(isPrivileged(0x400n /* View Channel */ | 0x800n /* Send Messages */)).toBe(false);
    expect(isPrivileged(0x10000000000n)).toBe(true);
  });
});
