import { causeCleared } from './cause-cleared';

describe('causeCleared', () => {
  const fine = () => null;
  it('ends a role-access block only when the role was read and is manageable now', () => {
    expect(causeCleared({ reason: 'above_bot', roleId: '1' }, { roleProblem: fine })).toBe(true);
    expect(causeCleared({ reason: 'above_bot', roleId: '1' }, { roleProblem: () => 'above_bot' })).toBe(false);
    expect(causeCleared({ reason: 'no_manage_roles', roleId: '1' }, { roleProblem: () => 'no_manage_roles' })).toBe(
      false,
    );
    expect(causeCleared({ reason: 'no_manage_roles', roleId: '1' }, { roleProblem: fine })).toBe(true);
    // Not read: nothing is known to be fixed.
    expect(causeCleared({ reason: 'above_bot', roleId: '1' }, { botInGuild: true })).toBe(false);
  });

  it('ends an outage when the bot is seen in the guild', () => {
    expect(causeCleared({ reason: 'bot_not_in_guild', roleId: '1' }, { botInGuild: true })).toBe(true);
    expect(causeCleared({ reason: 'bot_not_in_guild', roleId: '1' }, { botInGuild: false })).toBe(false);
  });

  it('retries 2FA after a passing 2FA check, and a bare refusal only when an admin asked', () => {
    expect(causeCleared({ reason: 'mfa_required', roleId: '1' }, { twoFactorOk: true })).toBe(true);
    expect(causeCleared({ reason: 'mfa_required', roleId: '1' }, { roleProblem: fine })).toBe(false);
    expect(causeCleared({ reason: 'refused', roleId: '1' }, { roleProblem: fine })).toBe(false);
    expect(causeCleared({ reason: 'refused', roleId: '1' }, { roleProblem: fine, explicit: true })).toBe(true);
  });
});
