import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { pollEvery, queries } from '../api/queries';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { ErrorState, Loading } from '../components/ErrorState';
import { LinkCardView } from '../components/LinkCardView';
import { roleLabel } from '../components/RoleName';
import { SetupCheckPanel } from '../components/SetupCheckPanel';
import { usePageTitle } from '../components/PageTitle';
import { SlotsSummary } from '../components/SlotsSummary';
import { guildAuditPath, guildHealthPath, guildNotificationsPath, newLinkPath } from '../paths';
import styles from './GuildPage.module.css';
import { ButtonLink } from '../components/Button';

const REFRESH_MS = 5_000;

/** `/guilds/:guildId`: every role link as a card, refreshed every 5 s while the tab is visible. */
export function GuildPage() {
  const guildId = useParams().guildId ?? '';
  // This page shows the counts: it reads the guild afresh on arrival (staleTime 0), then every 5 s.
  const {
    data: guild,
    error,
    isPending,
    refetch,
  } = useQuery({ ...queries.guild(guildId), staleTime: 0, refetchInterval: pollEvery(REFRESH_MS) });
  usePageTitle(guild?.name ?? null);

  if (isPending) return <Loading />;
  if (!guild) return error ? <ErrorState error={error} onRetry={() => void refetch()} /> : null;

  const full = guild.slots.used >= guild.slots.allowed;
  // A role the bot may not change (the bot's own absence has its own banner above).
  const blockedRoles = guild.links
    .filter((l) => l.state === 'blocked' && l.reason !== 'bot_not_in_guild')
    .map((l) => roleLabel(l.role, l.role_id, l.role_readable));
  return (
    <>
      <Breadcrumbs current={guild.name} />
      <div className="page-header">
        <div>
          <h1>{guild.name}</h1>
          <SlotsSummary guild={guild} />
          {guild.member_count !== null ? (
            <p className="muted small">{guild.member_count.toLocaleString()} members</p>
          ) : null}
        </div>
        <div className="actions">
          <ButtonLink to={guildHealthPath(guildId)}>Plugin status</ButtonLink>
          <ButtonLink to={guildAuditPath(guildId)}>Audit log</ButtonLink>
          <ButtonLink to={guildNotificationsPath(guildId)}>Notifications</ButtonLink>
          <ButtonLink tone="primary" to={newLinkPath(guildId)}>
            Create link
          </ButtonLink>
        </div>
      </div>
      {!guild.bot.in_guild ? (
        <p className="note note-danger" role="alert">
          The bot is not in this server: it was removed, or the server is gone. Nothing is synced until it is back;
          every list is kept and syncing resumes on its own.{' '}
          <a href={guild.bot.invite_url} target="_blank" rel="noopener noreferrer">
            Add the bot back
          </a>
        </p>
      ) : null}
      {/* Problems the bot already met, from the stored facts (not only Check setup): each card says which and the fix. */}
      {blockedRoles.length > 0 ? (
        <p className="note note-danger" role="alert" data-testid="blocked-links">
          The bot cannot change {blockedRoles.length === 1 ? 'a linked role' : `${blockedRoles.length} linked roles`} (
          {blockedRoles.join(', ')}): nothing changes on {blockedRoles.length === 1 ? 'it' : 'them'} until the cause on
          the card is fixed.
        </p>
      ) : null}
      {guild.bot.members_listing_blocked ? (
        <p className="note note-warning" role="alert">
          {guild.bot.members_intent_message}
        </p>
      ) : null}
      {full ? (
        <p className="note note-warning">
          All {guild.slots.allowed} integration slots of this server are in use. Links beyond the allowance are paused
          until the server upgrades or another link is deleted.
        </p>
      ) : null}
      {error ? (
        <p className="note note-danger" role="status">
          Could not refresh: {error.message}. Showing the last known state.
        </p>
      ) : null}
      <SetupCheckPanel guildId={guildId} />
      {guild.links.length === 0 ? (
        <div className="empty-state">
          <h2>No role links yet</h2>
          <p>Create a link to let a plugin server decide who holds one of this server's roles.</p>
        </div>
      ) : (
        <div className={styles.cardGrid}>
          {guild.links.map((card) => (
            <LinkCardView key={card.link_id} card={card} owner={guild.owner} />
          ))}
        </div>
      )}
    </>
  );
}
