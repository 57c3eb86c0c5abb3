import type { LinkBlockedReason } from './link-state';
import type { RoleAccessProblem } from './role-access';

/**
 * What a check just saw (`rolelink doctor`, the dashboard's Check setup, the dashboard's read of the
 * guild's roles): each field only when the check looked at it.
 * - `botInGuild`: the bot is a member of the guild;
 * - `roleProblem`: the linked role's access problem as just read (null: the bot may change it; undefined:
 *   not read);
 * - `twoFactorOk`: the 2FA check passed;
 * - `explicit`: an admin asked for the check, so a cause no read can show (`refused`) is tried again too.
 */
export type CauseEvidence = {
  botInGuild?: boolean;
  roleProblem?: (roleId: string) => RoleAccessProblem | null | undefined;
  twoFactorOk?: boolean;
  explicit?: boolean;
};

/**
 * Whether a blocked link's cause is gone by what a check saw: the link is then retried at once instead of
 * waiting for its back-off (the worker re-checks and ends the block on its first success).
 */
export function causeCleared(block: { reason: LinkBlockedReason; roleId: string }, e: CauseEvidence): boolean {
  switch (block.reason) {
    case 'bot_not_in_guild':
      return e.botInGuild === true;
    case 'no_manage_roles':
    case 'above_bot':
    case 'managed':
    case 'unknown_role':
      return e.roleProblem !== undefined && e.roleProblem(block.roleId) === null;
    case 'mfa_required':
      return e.twoFactorOk === true;
    case 'refused':
      return e.explicit === true && e.roleProblem !== undefined && e.roleProblem(block.roleId) === null;
  }
}
