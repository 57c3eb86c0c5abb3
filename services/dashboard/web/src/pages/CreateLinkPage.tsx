import { zodResolver } from '@hookform/resolvers/zod';
import type { CreateLinkBody, RoleChoice } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState, type ChangeEvent } from 'react';
import { useForm, useWatch, type UseFormRegisterReturn } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { dashboardApi } from '../api/dashboard-api';
import { queries, queryKeys } from '../api/queries';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { ErrorBanner, ErrorState, Loading } from '../components/ErrorState';
import { usePageTitle } from '../components/PageTitle';
import { RoleSwatch } from '../components/RoleName';
import { useToast } from '../components/toasts';
import { guildPath, linkPaths } from '../paths';
import {
  CREATE_LINK_FIELDS,
  createLinkForm,
  emptyCreateLink,
  roleAsks,
  type CreateLinkValues,
} from './create-link-form';
import { ExistingMembersChoice } from './ExistingMembersChoice';
import styles from './CreateLinkPage.module.css';
import { Button, ButtonLink } from '../components/Button';
import { Field, FieldErrorText, FieldHelp } from '../components/Field';
import { Card } from '../components/Card';

function optionText(role: RoleChoice, linked: boolean): string {
  if (linked) return `${role.name} — already linked`;
  if (!role.usable) return `${role.name} — ${role.reason ?? 'cannot be used'}`;
  if (role.privileged.length > 0) return `${role.name} — privileged (${role.privileged.join(', ')})`;
  return role.name;
}

/** `/guilds/:guildId/links/new`: pick a role, give the plugin's URL, answer the existing-members question. */
export function CreateLinkPage() {
  const guildId = useParams().guildId ?? '';
  usePageTitle('Create link');
  const navigate = useNavigate();
  const toast = useToast();
  const id = useId();
  const client = useQueryClient();
  const roles = useQuery(queries.roles(guildId));
  const guild = useQuery(queries.guild(guildId));

  // Every input is the form's (react-hook-form), checked by createLinkForm for the role chosen at the time.
  const [selectedRole, setSelectedRole] = useState<RoleChoice | undefined>(undefined);
  const { control, register, handleSubmit, setValue, setError, clearErrors, formState } = useForm<
    CreateLinkValues,
    unknown,
    CreateLinkBody
  >({
    resolver: zodResolver(createLinkForm(selectedRole)),
    defaultValues: emptyCreateLink,
  });
  const errors = formState.errors;
  const [roleId, roleQuery, mode] = useWatch({ control, name: ['role_id', 'role_query', 'existing_members'] });
  const create = useMutation({
    mutationFn: (body: CreateLinkBody) => dashboardApi.createLink(guildId, body),
    onSuccess: async (created) => {
      // The new card, the taken role and the slot count: every view of this guild is stale now (the guild
      // itself is read again before leaving, so its page never shows the list without the new link).
      void client.invalidateQueries({ queryKey: queryKeys.guilds });
      void client.invalidateQueries({ queryKey: queryKeys.roles(guildId) });
      await client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
      const n = created.existing_members;
      const members =
        n === 0
          ? undefined
          : created.member_mode === 'keep'
            ? `${n.toLocaleString()} current members were kept on the list.`
            : `The plugin was told the role's ${n.toLocaleString()} current ${n === 1 ? 'holder' : 'holders'}: its first list is judged against them as the previous list.`;
      toast.show('success', 'Link created', members);
      void navigate(linkPaths(guildId, created.role_id).config);
    },
    onError: (err) => {
      // The server's problems with a field are shown beside it, as the form's own are.
      if (err instanceof ApiError)
        for (const e of err.fieldErrors)
          if ((CREATE_LINK_FIELDS as readonly string[]).includes(e.field))
            setError(e.field as (typeof CREATE_LINK_FIELDS)[number], { type: 'server', message: e.message });
    },
  });
  const failure = create.error;
  // The URL the failed create was sent with (not what the field holds since), for the check to run.
  const failedUrl = create.variables?.plugin_url ?? '';
  const busy = create.isPending || create.isSuccess;

  const linkedRoles = useMemo(() => new Set(guild.data?.links.map((l) => l.role_id) ?? []), [guild.data]);
  const sorted = useMemo(() => [...(roles.data?.roles ?? [])].sort((a, b) => b.position - a.position), [roles.data]);
  const selected = sorted.find((r) => r.id === roleId);
  const query = roleQuery.trim().toLowerCase();
  // The chosen role stays listed whatever the search, so the select never shows a value it does not hold.
  const shown = query ? sorted.filter((r) => r.id === roleId || r.name.toLowerCase().includes(query)) : sorted;

  if (roles.isPending) return <Loading />;
  if (!roles.data) return roles.error ? <ErrorState error={roles.error} onRetry={() => void roles.refetch()} /> : null;
  const syncedLimit = roles.data.synced_limit;
  const { members: askMembers, consent: privileged } = roleAsks(selected);
  // Only the owner may consent; an admin is told why before they fill anything in (the server refuses too).
  const ownerOnly = privileged && guild.data?.owner === false;

  function chooseRole(next: string) {
    // A new role is a new question: an answer given for another role's members does not carry over.
    if (next !== roleId) {
      setValue('existing_members', null);
      setValue('owner_consent', '');
    }
    setSelectedRole(sorted.find((r) => r.id === next));
    clearErrors(['role_id', 'existing_members', 'owner_consent']);
  }

  const urlHelpId = `${id}-url-help`;
  const urlErrorId = `${id}-url-error`;
  const roleErrorId = `${id}-role-error`;
  const fieldErr = {
    role_id: errors.role_id?.message,
    plugin_url: errors.plugin_url?.message,
    existing_members: errors.existing_members?.message,
    owner_consent: errors.owner_consent?.message,
  };
  const invalid = Object.values(fieldErr).some(Boolean);

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current="Create link" />
      <div className="page-header">
        <h1>Create a role link</h1>
      </div>

      {failure instanceof ApiError && failure.status === 502 ? (
        <ErrorBanner error={failure} fieldErrors={false}>
          <p>
            The plugin server did not confirm the registration (it was unreachable or answered with an error), so the
            link was not created. Check that the plugin is running at that URL and try again.
          </p>
          <p>
            To test the plugin against the contract (register, config, health), run{' '}
            <code>rolelink plugin check {failedUrl || '<url>'}</code>.
          </p>
        </ErrorBanner>
      ) : failure instanceof ApiError && failure.status === 409 ? (
        <ErrorBanner error={failure} fieldErrors={false}>
          <p>
            This role already has a link. <Link to={linkPaths(guildId, roleId).config}>Open the existing link</Link>.
          </p>
        </ErrorBanner>
      ) : failure ? (
        <ErrorBanner error={failure} fieldErrors={false} />
      ) : invalid ? (
        <ErrorBanner message="Please correct the fields below." />
      ) : null}

      <Card as="form" className="form" onSubmit={(e) => void handleSubmit((body) => create.mutate(body))(e)} noValidate>
        <Field>
          <FieldHelp as="label" htmlFor={`${id}-role-search`}>
            Find a role
          </FieldHelp>
          <input
            id={`${id}-role-search`}
            type="search"
            className={styles.roleSearch}
            {...register('role_query')}
            placeholder="Type part of its name"
            aria-controls={`${id}-role`}
            aria-describedby={`${id}-role-count`}
          />
          <FieldHelp id={`${id}-role-count`} aria-live="polite">
            {query
              ? `${shown.filter((r) => r.id !== roleId || r.name.toLowerCase().includes(query)).length} of ${sorted.length} roles match`
              : `${sorted.length} roles`}
          </FieldHelp>
          <label htmlFor={`${id}-role`}>Role</label>
          <div className={styles.withSwatch}>
            <RoleSwatch color={selected?.color} />
            <select
              id={`${id}-role`}
              {...register('role_id', { onChange: (e: ChangeEvent<HTMLSelectElement>) => chooseRole(e.target.value) })}
              aria-invalid={fieldErr.role_id ? true : undefined}
              aria-describedby={fieldErr.role_id ? roleErrorId : undefined}
              required
            >
              <option value="">Choose a role…</option>
              {shown.map((r) => {
                const linked = linkedRoles.has(r.id);
                return (
                  <option key={r.id} value={r.id} disabled={!r.usable || linked}>
                    {optionText(r, linked)}
                  </option>
                );
              })}
            </select>
          </div>
          {fieldErr.role_id ? <FieldErrorText id={roleErrorId}>{fieldErr.role_id}</FieldErrorText> : null}
        </Field>

        {selected && privileged ? (
          <PrivilegedConsent
            role={selected}
            ownerOnly={ownerOnly}
            input={register('owner_consent')}
            error={fieldErr.owner_consent}
          />
        ) : null}

        {selected && askMembers ? (
          <ExistingMembersChoice
            role={selected}
            syncedLimit={syncedLimit}
            value={mode}
            onChange={(m) => setValue('existing_members', m, { shouldValidate: formState.isSubmitted })}
            error={fieldErr.existing_members}
          />
        ) : null}

        <Field>
          <label htmlFor={`${id}-url`}>Plugin URL</label>
          <input
            id={`${id}-url`}
            type="url"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            placeholder="https://plugin.example.com"
            {...register('plugin_url')}
            aria-invalid={fieldErr.plugin_url ? true : undefined}
            aria-describedby={fieldErr.plugin_url ? `${urlErrorId} ${urlHelpId}` : urlHelpId}
            required
          />
          <FieldHelp id={urlHelpId}>
            HTTPS only, on a public host (no localhost or private network addresses), at most 500 characters. The
            service registers the link with the plugin right away.
          </FieldHelp>
          {fieldErr.plugin_url ? <FieldErrorText id={urlErrorId}>{fieldErr.plugin_url}</FieldErrorText> : null}
        </Field>

        <p className="muted small">
          Synced limit on this server's plan: {syncedLimit.toLocaleString()} members per link.
        </p>

        <div className="form-actions">
          <Button type="submit" tone="primary" disabled={busy || ownerOnly}>
            {busy ? 'Creating…' : 'Create link'}
          </Button>
          <ButtonLink tone="ghost" to={guildPath(guildId)}>
            Cancel
          </ButtonLink>
        </div>
      </Card>
    </>
  );
}

/**
 * A privileged role: what it carries, and the owner's consent typed as its name. An admin who
 * is not the owner sees why they cannot link it instead of the field.
 */
function PrivilegedConsent({
  role,
  ownerOnly,
  input,
  error,
}: {
  role: RoleChoice;
  ownerOnly: boolean;
  input: UseFormRegisterReturn<'owner_consent'>;
  error: string | undefined;
}) {
  const id = useId();
  return (
    <Field as="fieldset" className={styles.privileged} aria-describedby={`${id}-why`}>
      <legend>Privileged role</legend>
      <p className="note note-danger" id={`${id}-why`}>
        {role.name} carries {role.privileged.join(', ')}. Whoever the plugin lists can run or damage this server, and a
        list that leaves someone out takes it from them. Linking it needs the server owner's consent.
      </p>
      {ownerOnly ? (
        <FieldErrorText role="alert">
          Only the server owner can link a privileged role. Ask the owner to create this link.
        </FieldErrorText>
      ) : (
        <>
          <label htmlFor={`${id}-consent`}>
            Type <strong>{role.name}</strong> to consent as the server owner
          </label>
          <input
            id={`${id}-consent`}
            type="text"
            autoComplete="off"
            spellCheck={false}
            {...input}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-consent-error` : undefined}
          />
          <FieldHelp>Your consent is recorded in the audit log, with your name and the time.</FieldHelp>
          {error ? <FieldErrorText id={`${id}-consent-error`}>{error}</FieldErrorText> : null}
        </>
      )}
    </Field>
  );
}
