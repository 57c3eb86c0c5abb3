import { Link, useParams } from 'react-router';
import { dashboardApi } from '../api/dashboard-api';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { ErrorState, Loading } from '../components/ErrorState';
import { LinkCardView } from '../components/LinkCardView';
import { usePageTitle } from '../components/PageTitle';
import { SlotsSummary } from '../components/SlotsSummary';
import { usePolling } from '../hooks/use-page-visible';
import { useResource } from '../hooks/use-resource';
import { guildAuditPath, guildHealthPath, newLinkPath } from '../paths';

const REFRESH_MS = 5_000;

/** `/guilds/:guildId`: every role link as a card, refreshed every 5 s while the tab is visible. */
export function GuildPage() {
  const guildId = useParams().guildId ?? '';
  const { data: guild, error, loading, reload } = useResource((signal) => dashboardApi.guild(guildId, signal), guildId);
  usePolling(() => void reload(), REFRESH_MS, guild !== undefined);
  usePageTitle(guild?.name ?? null);

  if (loading) return <Loading />;
  if (!guild) return error ? <ErrorState error={error} onRetry={() => void reload()} /> : null;

  const full = guild.slots.used >= guild.slots.allowed;
  return (
    <>
      <Breadcrumbs current={guild.name} />
      <div className="page-header">
        <div>
          <h1>{guild.name}</h1>
          <SlotsSummary guild={guild} />
          {guild.member_count !== null ? <p className="muted small">{guild.member_count.toLocaleString()} members</p> : null}
        </div>
        <div className="actions">
          <Link className="btn" to={guildHealthPath(guildId)}>
            Plugin status
          </Link>
          <Link className="btn" to={guildAuditPath(guildId)}>
            Audit log
          </Link>
          <Link className="btn btn-primary" to={newLinkPath(guildId)}>
            Create link
          </Link>
        </div>
      </div>
      {full ? <p className="note note-warning">All {guild.slots.allowed} integration slots of this server are in use. Links beyond the allowance are paused until the server upgrades or another link is deleted.</p> : null}
      {error ? (
        <p className="note note-danger" role="status">
          Could not refresh: {error.message}. Showing the last known state.
        </p>
      ) : null}
      {guild.links.length === 0 ? (
        <div className="empty-state">
          <h2>No role links yet</h2>
          <p>Create a link to let a plugin server decide who holds one of this server's roles.</p>
        </div>
      ) : (
        <div className="card-grid">
          {guild.links.map((card) => (
            <LinkCardView key={card.link_id} card={card} owner={guild.owner} onChanged={() => void reload()} />
          ))}
        </div>
      )}
    </>
  );
}
