import { privilegedPermissions, roleAccessProblem, ROLE_ACCESS_MESSAGES } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';
import { platformErrorOf } from './platform-answer';

/**
 * The owner's consent to link a privileged role: the role's name, typed. `actingIsOwner`
 * false (a dashboard admin who is not the owner) refuses whatever was typed: only the owner may give it.
 * The CLI leaves it undefined: its operator attests the owner's consent with `--owner-consent`.
 */
export type OwnerConsent = { ownerConsent?: string; actingIsOwner?: boolean };

/** What link creation learned about the role: recorded with the link's audit entry. */
export type RoleChecked = { name: string; privileged: string[] } | null;

/**
 * Before any link: the bot must be able to manage the role now, by the platform's rules read
 * from the platform (403 naming the one fix otherwise), and a privileged role needs the owner's typed
 * consent (403 `owner_consent_required` / `owner_only`). Null where no platform is configured: nothing
 * could be checked.
 */
export async function checkRoleForLink(
  deps: Pick<AdminDeps, 'botFacts' | 'botInvite'>,
  guildId: string,
  roleId: string,
  consent: OwnerConsent,
): Promise<RoleChecked> {
  if (!deps.botFacts) return null;
  // The platform's answer told as it is: 404 10004 means the bot is not in the server (the invite fixes
  // it), a 5xx or no answer is worth another try; never the one told as the other.
  const facts = await deps.botFacts(guildId).catch(async (err: unknown) => {
    throw await platformErrorOf(deps, err, 'Whether the bot can manage this role cannot be checked', guildId);
  });
  const problem = roleAccessProblem(facts, roleId);
  if (problem === 'unknown_role')
    throw AppError.field(400, 'role_id', ROLE_ACCESS_MESSAGES.unknown_role, 'unknown_role');
  if (problem)
    throw AppError.field(
      403,
      'role_id',
      `The bot cannot manage this role. ${ROLE_ACCESS_MESSAGES[problem]}`,
      `role_${problem}`,
    );
  const role = facts.roles.find((r) => r.id === roleId)!;
  const privileged = privilegedPermissions(role.permissions);
  if (privileged.length === 0) return { name: role.name, privileged };
  const carries = `"${role.name}" is a privileged role (it carries ${privileged.join(', ')})`;
  if (consent.actingIsOwner === false)
    throw AppError.field(
      403,
      'owner_consent',
      `${carries}: only the server owner can link it. Ask the owner to create this link.`,
      'owner_only',
    );
  if (consent.ownerConsent?.trim() !== role.name) {
    const typed =
      consent.ownerConsent === undefined ? 'no consent was given' : 'the consent given does not match the role name';
    throw AppError.field(
      403,
      'owner_consent',
      `${carries}: linking it needs the server owner's consent, typed as the role's name (${typed}).`,
      'owner_consent_required',
    );
  }
  return { name: role.name, privileged };
}
