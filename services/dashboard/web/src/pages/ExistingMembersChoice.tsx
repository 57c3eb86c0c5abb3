import type { RoleChoice } from '@rolelink/contracts';
import { useId } from 'react';

export type MemberMode = 'handover' | 'keep';

/** Spec 1: "Keep current members" only with an exact count that fits the plan's synced limit. */
export function keepUnavailableReason(role: RoleChoice, syncedLimit: number): string | null {
  if (!role.member_count_exact || role.member_count === null) return 'Not available: the service could not count the members of this role exactly.';
  if (role.member_count > syncedLimit) return `Not available: ${role.member_count.toLocaleString()} members is more than the plan's synced limit of ${syncedLimit.toLocaleString()}.`;
  return null;
}

export function roleHasMembers(role: RoleChoice): boolean {
  return role.member_count === null || role.member_count > 0;
}

function countText(role: RoleChoice): string {
  if (role.member_count === null) return 'This role may already have members (the count is not available).';
  const n = role.member_count;
  const approx = role.member_count_exact ? '' : 'About ';
  return `${approx}${n.toLocaleString()} ${n === 1 ? 'member holds' : 'members hold'} this role now.`;
}

type Props = { role: RoleChoice; syncedLimit: number; value: MemberMode; onChange: (mode: MemberMode) => void; error?: string | undefined };

/** The existing-members question of spec 1, asked when the chosen role already has members. */
export function ExistingMembersChoice({ role, syncedLimit, value, onChange, error }: Props) {
  const id = useId();
  const keepReason = keepUnavailableReason(role, syncedLimit);
  return (
    <fieldset className="field" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>Existing members</legend>
      <p className="field-help">{countText(role)} What should happen to them?</p>
      <div className="choice">
        <input type="radio" id={`${id}-handover`} name="existing_members" value="handover" checked={value === 'handover'} onChange={() => onChange('handover')} aria-describedby={`${id}-handover-help`} />
        <div>
          <label htmlFor={`${id}-handover`}>Hand over</label>
          <p className="field-help" id={`${id}-handover-help`}>
            Nothing changes until the plugin's first list arrives. Members not on that list then lose the role; a large removal is held until the server owner confirms it.
          </p>
        </div>
      </div>
      <div className="choice">
        <input type="radio" id={`${id}-keep`} name="existing_members" value="keep" checked={value === 'keep'} disabled={keepReason !== null} onChange={() => onChange('keep')} aria-describedby={`${id}-keep-help`} />
        <div>
          <label htmlFor={`${id}-keep`}>Keep current members</label>
          <p className="field-help" id={`${id}-keep-help`}>
            {keepReason ?? 'The current members are added to the link’s list before the plugin is registered, so the first sync changes nothing. They stay until the plugin removes them or replaces its list.'}
          </p>
        </div>
      </div>
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
