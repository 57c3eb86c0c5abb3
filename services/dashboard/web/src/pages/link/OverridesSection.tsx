import { zodResolver } from '@hookform/resolvers/zod';
import { type OverrideKind, type OverridesChangeBody, type OverridesView } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { ApiError } from '../../api/client';
import { dashboardApi } from '../../api/dashboard-api';
import { queries, queryKeys } from '../../api/queries';
import { DateTime } from '../../components/DateTime';
import { ErrorBanner, ErrorState, Loading } from '../../components/ErrorState';
import { useToast } from '../../components/toasts';
import { userIdField } from '../../forms/user-id-field';
import { useLinkContext } from './link-context';
import styles from './OverridesSection.module.css';
import { Button } from '../../components/Button';
import { Field, FieldErrorText, FieldHelp } from '../../components/Field';
import { Card } from '../../components/Card';

const LIST_TEXT: Record<OverrideKind, { title: string; help: string; empty: string }> = {
  always: {
    title: 'Always keep',
    help: "Hold the role whatever the plugin's list says (they take synced places first).",
    empty: 'Nobody is always kept.',
  },
  never: {
    title: 'Never give',
    help: 'Never get the role, even when the plugin lists them (their place goes to the next listed member).',
    empty: 'Nobody is excluded.',
  },
};

/** Add an override: a user ID by the contract's rule, and which list. */
const addForm = z.object({ userId: userIdField, list: z.enum(['always', 'never']) });
type AddForm = z.output<typeof addForm>;

/**
 * Admin overrides of the link (docs/dashboard.md, "Overrides"): two small lists the sync engine applies
 * above the plugin's list. The plugin's own list and API answers do not change. Every change is in the
 * server's audit log.
 */
export function OverridesSection() {
  const { guildId, roleId } = useLinkContext();
  const overrides = useQuery(queries.overrides(guildId, roleId));
  const client = useQueryClient();
  const toast = useToast();
  const change = useMutation({
    mutationFn: (body: OverridesChangeBody) => dashboardApi.changeOverrides(guildId, roleId, body),
    onSuccess: (view) => {
      client.setQueryData(queryKeys.overrides(guildId, roleId), view);
      // The card's counts and any looked-up member's state follow from the overrides.
      void client.invalidateQueries({ queryKey: queryKeys.link(guildId, roleId) });
    },
  });

  return (
    <section className={styles.section} aria-labelledby="overrides-heading">
      <h2 id="overrides-heading">Overrides</h2>
      <p className="muted small">
        Applied by the bot above the plugin&apos;s list; the plugin&apos;s list itself is unchanged. At most{' '}
        {overrides.data?.max_per_list.toLocaleString() ?? '1,000'} members per list.
      </p>
      {overrides.isPending ? <Loading /> : null}
      {!overrides.data && overrides.error ? (
        <ErrorState error={overrides.error} onRetry={() => void overrides.refetch()} />
      ) : null}
      {overrides.data ? (
        <>
          <AddOverrideForm
            onAdd={(values) => change.mutateAsync({ [values.list]: [values.userId] })}
            onAdded={(v) => toast.show('success', `Added to "${LIST_TEXT[v.list].title}"`)}
          />
          {change.error && !(change.error instanceof ApiError && change.error.fieldErrors.length) ? (
            <ErrorBanner error={change.error} />
          ) : null}
          <div className={styles.lists}>
            {(['always', 'never'] as const).map((list) => (
              <OverrideList
                key={list}
                list={list}
                view={overrides.data}
                busy={change.isPending}
                onRemove={(userId) =>
                  change.mutate(
                    { remove: [userId] },
                    { onSuccess: () => toast.show('success', `Removed ${userId} from "${LIST_TEXT[list].title}"`) },
                  )
                }
              />
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}

function OverrideList({
  list,
  view,
  busy,
  onRemove,
}: {
  list: OverrideKind;
  view: OverridesView;
  busy: boolean;
  onRemove: (userId: string) => void;
}) {
  const entries = view[list];
  const headingId = `overrides-${list}`;
  return (
    <Card className={styles.list}>
      <h3 id={headingId}>
        {LIST_TEXT[list].title} <span className="muted small">({entries.length})</span>
      </h3>
      <p className="muted small">{LIST_TEXT[list].help}</p>
      {entries.length === 0 ? (
        <p className="muted">{LIST_TEXT[list].empty}</p>
      ) : (
        <ul className={styles.entries} aria-labelledby={headingId}>
          {entries.map((e) => (
            <li key={e.user_id} className={styles.entry}>
              <code>{e.user_id}</code>
              <span className="muted small">
                <DateTime iso={e.added_at} />
              </span>
              <Button
                size="small"
                disabled={busy}
                onClick={() => onRemove(e.user_id)}
                aria-label={`Remove ${e.user_id} from ${LIST_TEXT[list].title}`}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function AddOverrideForm({
  onAdd,
  onAdded,
}: {
  onAdd: (values: AddForm) => Promise<unknown>;
  onAdded: (values: AddForm) => void;
}) {
  const id = useId();
  const { register, handleSubmit, setError, reset, formState } = useForm<z.input<typeof addForm>, unknown, AddForm>({
    resolver: zodResolver(addForm),
    defaultValues: { userId: '', list: 'always' },
  });
  const error = formState.errors.userId?.message;

  async function submit(values: AddForm) {
    const value = values;
    try {
      await onAdd(value);
      reset({ userId: '', list: value.list });
      onAdded(value);
    } catch (err) {
      // The server's field errors (a member already in the other list, a full list) are shown beside the input.
      const first = err instanceof ApiError ? err.fieldErrors[0] : undefined;
      if (first)
        setError('userId', { type: 'server', message: `${err instanceof Error ? err.message : ''}: ${first.message}` });
    }
  }

  return (
    <form
      className={`inline-form ${styles.add}`}
      onSubmit={(e) => void handleSubmit(submit)(e)}
      noValidate
      aria-label="Add an override"
    >
      <Field className={styles.userField}>
        {/* Not "User ID": the look-up above has that label. */}
        <label htmlFor={`${id}-user`}>Member ID</label>
        <input
          id={`${id}-user`}
          inputMode="numeric"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error ${id}-help` : `${id}-help`}
          {...register('userId')}
        />
        <FieldHelp id={`${id}-help`}>Their platform user ID (17 to 20 digits).</FieldHelp>
        {error ? (
          <FieldErrorText id={`${id}-error`} role="alert">
            {error}
          </FieldErrorText>
        ) : null}
      </Field>
      <fieldset className={styles.choice}>
        <legend>List</legend>
        <label>
          <input type="radio" value="always" {...register('list')} /> Always keep
        </label>
        <label>
          <input type="radio" value="never" {...register('list')} /> Never give
        </label>
      </fieldset>
      <Button type="submit" tone="primary" disabled={formState.isSubmitting}>
        Add override
      </Button>
    </form>
  );
}
