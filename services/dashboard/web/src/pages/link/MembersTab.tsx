import { zodResolver } from '@hookform/resolvers/zod';
import { MEMBER_OUTCOME_TEXT, type MemberLookup } from '@rolelink/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { dashboardApi } from '../../api/dashboard-api';
import { queries } from '../../api/queries';
import { DateTime } from '../../components/DateTime';
import { ErrorBanner } from '../../components/ErrorState';
import { userIdField } from '../../forms/user-id-field';
import { MemberHistory } from './MemberHistory';
import { OverridesSection } from './OverridesSection';
import { useLinkContext } from './link-context';
import styles from './MembersTab.module.css';
import { Button, buttonClass } from '../../components/Button';
import { Field, FieldErrorText, FieldHelp } from '../../components/Field';
import { Card } from '../../components/Card';

/** The look-up: one user ID, by the contract's rule. */
const lookUpForm = z.object({ user_id: userIdField });
type LookUpForm = z.input<typeof lookUpForm>;

const STATE_TEXT: Record<MemberLookup['state'], string> = {
  synced: 'On the list — synced',
  over_limit: "On the list — beyond the plan's synced limit",
  not_listed: 'Not on the list',
};

const OVERRIDE_TEXT: Record<NonNullable<MemberLookup['override']>, string> = {
  always: 'Override — always keep',
  never: 'Override — never give',
};

/** The headline: what the platform said of the account comes before the list's word. */
const HEADLINE: Partial<Record<MemberLookup['reason'], string>> = {
  account_deleted: 'Account deleted',
  not_in_server: 'Not in the server',
  held_for_safety: 'Held for safety',
};
const stateText = (result: MemberLookup) => HEADLINE[result.reason] ?? STATE_TEXT[result.state];

/** The dot's colour: whether the member holds the role by the server's answer (`should_hold`). */
function dotTone(result: MemberLookup): string {
  if (!result.should_hold) return '';
  return result.reason === 'held_for_safety' ? (styles.over_limit ?? '') : (styles.synced ?? '');
}

const outcomeText = (outcome: string) => MEMBER_OUTCOME_TEXT[outcome] ?? 'Another answer';

/** Members: is this user on the link's list, synced or held, what did the platform last answer, and the member's recent role changes? */
export function MembersTab() {
  const { guildId, roleId } = useLinkContext();
  const id = useId();
  // The contract's user-ID schema checks the field; the message says what an ID looks like.
  const { register, handleSubmit, formState } = useForm<LookUpForm>({
    resolver: zodResolver(lookUpForm),
    defaultValues: { user_id: '' },
  });
  const fieldError = formState.errors.user_id?.message ?? null;
  // The user ID last looked up: the query reads that member; looking the same one up again refetches it.
  const [asked, setAsked] = useState<string | null>(null);
  const lookup = useQuery({ ...queries.member(guildId, roleId, asked ?? ''), enabled: asked !== null });
  const busy = lookup.isFetching;
  const error = lookup.error ?? null;
  const result = error ? null : (lookup.data ?? null);

  function lookUp({ user_id }: { user_id: string }) {
    if (user_id === asked) void lookup.refetch();
    else setAsked(user_id);
  }

  return (
    <div>
      <h2>Members</h2>
      <p className={styles.exportRow}>
        {/* A plain download: the server streams the CSV from PostgreSQL, so a 30-million-member list works too. */}
        <a className={buttonClass()} href={dashboardApi.listCsvUrl(guildId, roleId)} download>
          Export the list (CSV)
        </a>
        <span className="muted small">
          Every user ID on the list, lowest first, with whether it is in the synced set.
        </span>
      </p>
      <form className={styles.lookUpForm} onSubmit={(e) => void handleSubmit(lookUp)(e)} noValidate>
        <Field>
          <label htmlFor={`${id}-user`}>User ID</label>
          <div className="input-group">
            <input
              id={`${id}-user`}
              inputMode="numeric"
              autoComplete="off"
              spellCheck={false}
              {...register('user_id')}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={fieldError ? `${id}-error ${id}-help` : `${id}-help`}
            />
            <Button type="submit" tone="primary" disabled={busy}>
              Look up
            </Button>
          </div>
          <FieldHelp id={`${id}-help`}>The member's platform user ID (17 to 20 digits).</FieldHelp>
          {fieldError ? <FieldErrorText id={`${id}-error`}>{fieldError}</FieldErrorText> : null}
        </Field>
      </form>
      {error ? <ErrorBanner error={error} /> : null}
      <div role="status" aria-live="polite">
        {result ? (
          <Card className={styles.result}>
            <p className={styles.state}>
              <span className={`${styles.dot} ${dotTone(result)}`} aria-hidden="true" />
              {result.override ? OVERRIDE_TEXT[result.override] : stateText(result)}
            </p>
            {result.override ? <p className="muted small">Plugin&apos;s list: {stateText(result)}</p> : null}
            <p className="muted small">
              User <code>{result.user_id}</code>
            </p>
            <p data-testid="member-reason">{result.message}</p>
            {result.expires_at ? (
              <p data-testid="member-expiry">
                Membership expires <DateTime iso={result.expires_at} />: then the user leaves the list, as if the plugin
                had removed them.
              </p>
            ) : result.state !== 'not_listed' ? (
              <p className="muted small">Permanent membership (no expiry).</p>
            ) : null}
            {result.platform ? (
              <p>
                Last platform outcome: <strong>{result.platform.text}</strong> (
                <DateTime iso={result.platform.updated_at} />)
              </p>
            ) : (
              <p>The bot has not acted on this member yet.</p>
            )}
            <MemberHistory history={result.history} outcomeText={outcomeText} />
          </Card>
        ) : null}
      </div>
      <OverridesSection />
    </div>
  );
}
