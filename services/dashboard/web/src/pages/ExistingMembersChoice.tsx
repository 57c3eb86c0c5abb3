import type { RoleChoice } from '@rolelink/contracts';
import { useId } from 'react';
import { Field, FieldErrorText, FieldHelp } from '../components/Field';

export type MemberMode = 'handover' | 'keep';

/** Spec 1: "Keep current members" only with an exact count that fits the plan's synced limit. */
export function keepUnavailableReason(role: RoleChoice, syncedLimit: number): string | null {
  if (role.member_count_unavailable) return `Not available: ${role.member_count_unavailable}`;
  if (!role.member_count_exact || role.member_count === null)
    return 'Not available: the service could not count the members of this role exactly.';
  if (role.member_count > syncedLimit)
    return `Not available: ${role.member_count.toLocaleString()} members is more than the plan's synced limit of ${syncedLimit.toLocaleString()}.`;
  return null;
}

const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export function roleHasMembers(role: RoleChoice): boolean {
  return role.member_count === null || role.member_count > 0;
}

/** The message when the question was left unanswered (the server's 400 says the same). */
export function choiceRequiredMessage(role: RoleChoice): string {
  return role.member_count === null
    ? 'Choose what happens to the members who hold this role now'
    : `${membersText(role)} ${role.member_count === 1 ? 'holds' : 'hold'} this role now: choose Hand over or Keep current members`;
}

/** "1 member", "About 250 members", "the current members" (count unknown). */
function membersText(role: RoleChoice): string {
  if (role.member_count === null) return 'the current members';
  const n = role.member_count;
  return `${role.member_count_exact ? '' : 'About '}${n.toLocaleString()} ${n === 1 ? 'member' : 'members'}`;
}

/**
 * What the plugin's first list is judged against, in numbers: the holders are its previous list, and
 * the plugin is told how many at registration (`current_holders`).
 */
export function handoverJudgedText(role: RoleChoice): string {
  if (role.member_count === null)
    return 'The plugin is told at registration how many members hold the role: its first list is judged against them as the previous list, and one that leaves out many of them (a quarter or more, and at least 10) is held until the server owner confirms it.';
  const n = role.member_count;
  const them = `${role.member_count_exact ? '' : 'about '}${n.toLocaleString()} current ${n === 1 ? 'holder' : 'holders'}`;
  const held =
    role.first_list_holds_at === null
      ? 'an empty first list'
      : `a first list that leaves out ${role.first_list_holds_at.toLocaleString()} or more of them, or is empty,`;
  return `The plugin is told at registration that the role has ${them}: its first list is judged against them as the previous list, so ${held} is held until the server owner confirms it.`;
}

function countText(role: RoleChoice): string {
  if (role.member_count === null) return 'This role may already have members (the count is not available).';
  const n = role.member_count;
  const approx = role.member_count_exact ? '' : 'About ';
  return `${approx}${n.toLocaleString()} ${n === 1 ? 'member holds' : 'members hold'} this role now.`;
}

type Props = {
  role: RoleChoice;
  syncedLimit: number;
  value: MemberMode | null;
  onChange: (mode: MemberMode) => void;
  error?: string | undefined;
};

/**
 * The existing-members question of spec 1, asked when the chosen role already has members. Nothing is
 * preselected: a preselected Hand over made a new admin's first sight a held removal of nearly
 * the whole role. Each answer says what it means for these members, by number.
 */
export function ExistingMembersChoice({ role, syncedLimit, value, onChange, error }: Props) {
  const id = useId();
  const keepReason = keepUnavailableReason(role, syncedLimit);
  return (
    <Field as="fieldset" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>Existing members</legend>
      <FieldHelp>{countText(role)} What should happen to them?</FieldHelp>
      <div className="choice">
        <input
          type="radio"
          id={`${id}-handover`}
          name="existing_members"
          value="handover"
          checked={value === 'handover'}
          onChange={() => onChange('handover')}
          aria-describedby={`${id}-handover-help`}
        />
        <div>
          <label htmlFor={`${id}-handover`}>Hand over</label>
          <FieldHelp id={`${id}-handover-help`}>
            Nothing changes until the plugin's first list arrives. Then{' '}
            {role.member_count === 1 ? 'the member who holds' : `${lower(membersText(role))} who hold`} the role now{' '}
            {role.member_count === 1 ? 'loses' : 'lose'} it unless on that list. {handoverJudgedText(role)}
          </FieldHelp>
        </div>
      </div>
      <div className="choice">
        <input
          type="radio"
          id={`${id}-keep`}
          name="existing_members"
          value="keep"
          checked={value === 'keep'}
          disabled={keepReason !== null}
          onChange={() => onChange('keep')}
          aria-describedby={`${id}-keep-help`}
        />
        <div>
          <label htmlFor={`${id}-keep`}>Keep current members</label>
          <FieldHelp id={`${id}-keep-help`}>
            {keepReason ??
              `${membersText(role)} ${role.member_count === 1 ? 'is' : 'are'} added to the link’s list before the plugin is registered, so the first sync changes nothing. They keep the role until the plugin removes them or replaces its list.`}
          </FieldHelp>
        </div>
      </div>
      {error ? <FieldErrorText id={`${id}-error`}>{error}</FieldErrorText> : null}
    </Field>
  );
}
