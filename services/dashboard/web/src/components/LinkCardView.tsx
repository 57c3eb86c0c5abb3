import type { LinkCard } from '@rolelink/contracts';
import { Link } from 'react-router';
import { linkPaths } from '../paths';
import { Badge, BadgeRow } from './Badge';
import facts from './facts.module.css';
import styles from './LinkCardView.module.css';
import { DateTime } from './DateTime';
import { HeldChangePanel } from './HeldChangePanel';
import { RemovalProgressNotice } from './RemovalProgress';
import { RoleName, roleLabel } from './RoleName';
import { HealthBadge, LinkStateBadge } from './status-badges';
import { SyncProgress } from './SyncProgress';
import { PluginUrl } from './PluginUrl';
import { Card, CardTitle } from './Card';

type Props = {
  card: LinkCard;
  /** Whether the viewer owns the server; undefined while unknown. */
  owner: boolean | undefined;
  /** On the guild page the role name links to the link's page; on the link page it is the page title. */
  headingLevel?: 'h2' | 'h3';
  linkToPage?: boolean;
};

/**
 * The state in the server's words (deriveLinkStatus's `message`, with its fix), said once, before the
 * rest; a problem known to the bot that does not stop the link (the Server Members intent) beside it.
 */
function StateExplanation({ card }: { card: LinkCard }) {
  const tone =
    card.state === 'blocked' || card.state === 'disabled'
      ? 'note note-danger'
      : card.state === 'paused' || card.state === 'held'
        ? 'note note-warning'
        : 'note';
  return (
    <>
      {card.message ? (
        <p className={tone} role="status" data-testid="link-state">
          {card.message}
          {card.state === 'blocked' && card.blocked?.invite_url ? (
            <>
              {' '}
              <a href={card.blocked.invite_url} target="_blank" rel="noopener noreferrer">
                Add the bot back
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {card.warnings.map((w) => (
        <p key={w.reason} className="note note-warning" role="note" data-testid="link-warning">
          {w.message}
        </p>
      ))}
    </>
  );
}

/** The link page's word on a privileged role: what it carries and what the service does about it. */
function PrivilegedNote({ card }: { card: LinkCard }) {
  return (
    <p className="note note-danger" role="note" aria-label="Privileged role">
      Privileged role: it carries {card.privileged.join(', ')}. Whoever the plugin lists can run or damage this server,
      so the server owner consented to this link by typing the role's name. When the plugin's list leaves out a member
      for whom it is the only source of Administrator or Manage Server, the bot keeps it on them until the owner applies
      the removal.
    </p>
  );
}

/** One role link as a card: state, counts, sync progress, plugin health and any held removal. */
export function LinkCardView({ card, owner, headingLevel = 'h3', linkToPage = true }: Props) {
  const fmt = (n: number) => n.toLocaleString();
  const name = roleLabel(card.role, card.role_id, card.role_readable);

  return (
    <Card as="article" aria-label={`Role link ${name}`}>
      <header className={styles.header}>
        <CardTitle as={headingLevel}>
          {linkToPage ? (
            <Link to={linkPaths(card.guild_id, card.role_id).config}>
              <RoleName role={card.role} roleId={card.role_id} readable={card.role_readable} />
            </Link>
          ) : (
            <RoleName role={card.role} roleId={card.role_id} readable={card.role_readable} />
          )}
        </CardTitle>
        <BadgeRow>
          <LinkStateBadge state={card.state} />
          {card.privileged.length > 0 ? (
            <Badge tone="danger" title={`Privileged role: it carries ${card.privileged.join(', ')}`}>
              Privileged
            </Badge>
          ) : null}
          {card.trusted ? (
            <Badge tone="info" title="Never subject to the large-removal hold">
              Trusted
            </Badge>
          ) : null}
          <HealthBadge status={card.health.status} />
        </BadgeRow>
      </header>

      <p className={styles.pluginUrl}>
        <span className="muted">Plugin URL </span>
        <PluginUrl url={card.plugin_url} />
      </p>

      <StateExplanation card={card} />
      {card.privileged.length > 0 && !linkToPage ? <PrivilegedNote card={card} /> : null}

      <dl className={facts.counts}>
        <div>
          <dt>Listed</dt>
          <dd>{fmt(card.counts.listed)}</dd>
        </div>
        <div>
          <dt>Synced</dt>
          <dd>{fmt(card.counts.synced)}</dd>
        </div>
        <div>
          <dt>To add</dt>
          <dd>{fmt(card.counts.to_add)}</dd>
        </div>
        <div>
          <dt>To remove</dt>
          <dd>{fmt(card.counts.to_remove)}</dd>
        </div>
        <div>
          <dt>Held</dt>
          <dd>{fmt(card.counts.held)}</dd>
        </div>
        <div>
          <dt>Synced limit</dt>
          <dd>{fmt(card.limits.synced_limit)}</dd>
        </div>
      </dl>

      <SyncProgress link={card} />
      {card.counts.over_limit > 0 ? (
        <p className="muted small">
          {fmt(card.counts.over_limit)} users beyond the plan's synced limit are stored and not synced; they are synced
          automatically after an upgrade.
        </p>
      ) : null}
      {card.sync.last_sync_at ? (
        <p className="muted small">
          Last sync <DateTime iso={card.sync.last_sync_at} />
        </p>
      ) : null}

      {card.held_change ? (
        <HeldChangePanel
          guildId={card.guild_id}
          roleId={card.role_id}
          roleName={name}
          held={card.held_change}
          removal={card.removal?.change_id === card.held_change.change_id ? card.removal : null}
          owner={owner}
        />
      ) : null}
      {/* Once nothing of it is held (the list arrived, or an admin-source hold was applied), where the removal stands, from the server. */}
      {card.removal && card.removal.change_id !== card.held_change?.change_id ? (
        <RemovalProgressNotice removal={card.removal} />
      ) : null}
    </Card>
  );
}
