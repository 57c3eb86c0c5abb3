import { createLinkBody, type CreateLinkBody, type FieldError, type RoleChoice } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState, type FormEvent } from 'react';
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
import { choiceRequiredMessage, ExistingMembersChoice, roleHasMembers, type MemberMode } from './ExistingMembersChoice';
import styles from './CreateLinkPage.module.css';
import { Button, ButtonLink } from '../components/Button';
import { Field, FieldErrorText, FieldHelp } from '../components/Field';
import { Card } from '../components/Card';

type FieldKey = 'role_id' | 'plugin_url' | 'existing_members' | 'owner_consent';
const FIELD_KEYS: readonly string[] = ['role_id', 'plugin_url', 'existing_members', 'owner_consent'] satisfies FieldKey[];
type Failure = { message: string; status: number; fields: Partial<Record<FieldKey, string>> };

function optionText(role: RoleChoice, linked: boolean): string {
  if (linked) return `${role.name} — already linked`;
  if (!role.usable) return `${role.name} — ${role.reason ?? 'cannot be used'}`;
  if (role.privileged.length > 0) return `${role.name} — privileged (${role.privileged.join(', ')})`;
  return role.name;
}

function fieldMap(errors: readonly FieldError[]): Partial<Record<FieldKey, string>> {
  const out: Partial<Record<FieldKey, string>> = {};
  for (const e of errors) if (FIELD_KEYS.includes(e.field) && !out[e.field as FieldKey]) out[e.field as FieldKey] = e.message;
  return out;
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

  const [roleId, setRoleId] = useState('');
  const [pluginUrl, setPluginUrl] = useState('');
  // The role picker's search: a server may have hundreds of roles (the platform allows 250).
  const [roleQuery, setRoleQuery] = useState('');
  // No answer until the admin gives one (spec 1: the dashboard asks; issue 20: never preselected).
  const [mode, setMode] = useState<MemberMode | null>(null);
  // A privileged role's consent: the owner types its name (issue 34).
  const [consent, setConsent] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const create = useMutation({
    mutationFn: (body: CreateLinkBody) => dashboardApi.createLink(guildId, body),
    onSuccess: async (created) => {
      // The new card, the taken role and the slot count: every view of this guild is stale now (the guild
      // itself is read again before leaving, so its page never shows the list without the new link).
      void client.invalidateQueries({ queryKey: queryKeys.guilds });
      void client.invalidateQueries({ queryKey: queryKeys.roles(guildId) });
      await client.invalidateQueries({ queryKey: queryKeys.guild(guildId), exact: true });
      const kept = created.member_mode === 'keep' && created.existing_members > 0 ? `${created.existing_members.toLocaleString()} current members were kept on the list.` : undefined;
      toast.show('success', 'Link created', kept);
      void navigate(linkPaths(guildId, created.role_id).config);
    },
    onError: (err) => {
      if (err instanceof ApiError) setFailure({ message: err.message, status: err.status, fields: fieldMap(err.fieldErrors) });
      else setFailure({ message: err.message, status: 0, fields: {} });
    },
  });
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
  const askMembers = selected !== undefined && roleHasMembers(selected);
  const privileged = selected !== undefined && selected.privileged.length > 0;
  // Only the owner may consent; an admin is told why before they fill anything in (the server refuses too).
  const ownerOnly = privileged && guild.data?.owner === false;

  function chooseRole(next: string) {
    // A new role is a new question: an answer given for another role's members does not carry over.
    if (next !== roleId) {
      setMode(null);
      setConsent('');
    }
    setRoleId(next);
    setFailure((f) => (f ? { ...f, fields: { ...f.fields, role_id: undefined, existing_members: undefined } } : f));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Failure['fields'] = {};
    if (!roleId) fields.role_id = 'Choose a role';
    const url = createLinkBody.shape.plugin_url.safeParse(pluginUrl.trim());
    if (!url.success) fields.plugin_url = url.error.issues[0]?.message ?? 'Enter the plugin server URL';
    if (selected && askMembers && mode === null) fields.existing_members = choiceRequiredMessage(selected);
    if (selected && privileged && consent.trim() !== selected.name) fields.owner_consent = `Type the role's name, ${selected.name}, exactly as shown to consent`;
    if (Object.keys(fields).length > 0) {
      setFailure({ message: 'Please correct the fields below.', status: 0, fields });
      return;
    }
    setFailure(null);
    create.mutate({ role_id: roleId, plugin_url: pluginUrl.trim(), ...(askMembers && mode !== null ? { existing_members: mode } : {}), ...(privileged ? { owner_consent: consent.trim() } : {}) });
  }

  const urlHelpId = `${id}-url-help`;
  const urlErrorId = `${id}-url-error`;
  const roleErrorId = `${id}-role-error`;
  const fieldErr = failure?.fields ?? {};

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current="Create link" />
      <div className="page-header">
        <h1>Create a role link</h1>
      </div>

      {failure && failure.status === 502 ? (
        <ErrorBanner message={failure.message}>
          <p>The plugin server did not confirm the registration (it was unreachable or answered with an error), so the link was not created. Check that the plugin is running at that URL and try again.</p>
        </ErrorBanner>
      ) : failure && failure.status === 409 ? (
        <ErrorBanner message={failure.message}>
          <p>
            This role already has a link. <Link to={linkPaths(guildId, roleId).config}>Open the existing link</Link>.
          </p>
        </ErrorBanner>
      ) : failure ? (
        <ErrorBanner message={failure.message} />
      ) : null}

      <Card as="form" className="form" onSubmit={submit} noValidate>
        <Field>
          <FieldHelp as="label" htmlFor={`${id}-role-search`}>
            Find a role
          </FieldHelp>
          <input
            id={`${id}-role-search`}
            type="search"
            className={styles.roleSearch}
            value={roleQuery}
            onChange={(e) => setRoleQuery(e.target.value)}
            placeholder="Type part of its name"
            aria-controls={`${id}-role`}
            aria-describedby={`${id}-role-count`}
          />
          <FieldHelp id={`${id}-role-count`} aria-live="polite">
            {query ? `${shown.filter((r) => r.id !== roleId || r.name.toLowerCase().includes(query)).length} of ${sorted.length} roles match` : `${sorted.length} roles`}
          </FieldHelp>
          <label htmlFor={`${id}-role`}>Role</label>
          <div className={styles.withSwatch}>
            <RoleSwatch color={selected?.color} />
            <select id={`${id}-role`} value={roleId} onChange={(e) => chooseRole(e.target.value)} aria-invalid={fieldErr.role_id ? true : undefined} aria-describedby={fieldErr.role_id ? roleErrorId : undefined} required>
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

        {selected && privileged ? <PrivilegedConsent role={selected} ownerOnly={ownerOnly} value={consent} onChange={setConsent} error={fieldErr.owner_consent} /> : null}

        {selected && askMembers ? (
          <ExistingMembersChoice
            role={selected}
            syncedLimit={syncedLimit}
            value={mode}
            onChange={(m) => {
              setMode(m);
              setFailure((f) => (f ? { ...f, fields: { ...f.fields, existing_members: undefined } } : f));
            }}
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
            value={pluginUrl}
            onChange={(e) => setPluginUrl(e.target.value)}
            aria-invalid={fieldErr.plugin_url ? true : undefined}
            aria-describedby={fieldErr.plugin_url ? `${urlErrorId} ${urlHelpId}` : urlHelpId}
            required
          />
          <FieldHelp id={urlHelpId}>HTTPS only, on a public host (no localhost or private network addresses), at most 500 characters. The service registers the link with the plugin right away.</FieldHelp>
          {fieldErr.plugin_url ? <FieldErrorText id={urlErrorId}>{fieldErr.plugin_url}</FieldErrorText> : null}
        </Field>

        <p className="muted small">Synced limit on this server's plan: {syncedLimit.toLocaleString()} members per link.</p>

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
 * A privileged role (issue 34): what it carries, and the owner's consent typed as its name. An admin who
 * is not the owner sees why they cannot link it instead of the field.
 */
function PrivilegedConsent({ role, ownerOnly, value, onChange, error }: { role: RoleChoice; ownerOnly: boolean; value: string; onChange: (v: string) => void; error: string | undefined }) {
  const id = useId();
  return (
    <Field as="fieldset" className={styles.privileged} aria-describedby={`${id}-why`}>
      <legend>Privileged role</legend>
      <p className="note note-danger" id={`${id}-why`}>
        {role.name} carries {role.privileged.join(', ')}. Whoever the plugin lists can run or damage this server, and a list that leaves someone out takes it from them. Linking it needs the server owner's consent.
      </p>
      {ownerOnly ? (
        <FieldErrorText role="alert">Only the server owner can link a privileged role. Ask the owner to create this link.</FieldErrorText>
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
            value={value}
            onChange={(e) => onChange(e.target.value)}
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
