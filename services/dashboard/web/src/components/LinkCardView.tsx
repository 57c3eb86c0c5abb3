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

function StateExplanation({ card }: { card: LinkCard }) {
  // The platform refuses the bot for the whole link (issue 34): said once, with the fix, before the rest.
  if (card.blocked) {
    return (
      <p className="note note-danger" role="status">
        {card.blocked.reason === 'bot_not_in_guild'
          ? 'The bot is not in this server. '
          : 'The bot cannot change this role. '}
        {card.blocked.message}
        {card.blocked.invite_url ? (
          <>
            {' '}
            <a href={card.blocked.invite_url} target="_blank" rel="noopener noreferrer">
              Add the bot back
            </a>
          </>
        ) : null}
      </p>
    );
  }
  if (card.state === 'paused') {
    return (
      <p className="note note-warning">
        Integration paused: this server has more role links than its plan's integration slots (this link is number{' '}
        {card.slot.position}; {card.slot.allowance} allowed). The bot stopped syncing it and the plugin's API calls are
        refused until it is back within the allowance — upgrade the server or delete another link. The stored list is
        kept and syncing resumes on its own.
      </p>
    );
  }
  if (card.state === 'disabled') {
    return (
      <p className="note note-danger">
        Disabled: the plugin's API calls are refused until the link is enabled again in Settings.
      </p>
    );
  }
  if (card.awaiting_first_list) {
    return (
      <p className="note">Hand over: current role members are left alone until the plugin sends its first list.</p>
    );
  }
  return null;
}

/** The link page's word on a privileged role (issue 34): what it carries and what the service does about it. */
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

/** One role link as a card (issue 9): state, counts, sync progress, plugin health and any held removal. */
export function LinkCardView({ card, owner, headingLevel = 'h3', linkToPage = true }: Props) {
  const fmt = (n: number) => n.toLocaleString();
  const name = roleLabel(card.role, card.role_id);

  return (
    <Card as="article" aria-label={`Role link ${name}`}>
      <header className={styles.header}>
        <CardTitle as={headingLevel}>
          {linkToPage ? (
            <Link to={linkPaths(card.guild_id, card.role_id).config}>
              <RoleName role={card.role} roleId={card.role_id} />
            </Link>
          ) : (
            <RoleName role={card.role} roleId={card.role_id} />
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
          <dt>Users</dt>
          <dd>{fmt(card.counts.user_count)}</dd>
        </div>
        <div>
          <dt>Synced</dt>
          <dd>{fmt(card.counts.synced_count)}</dd>
        </div>
        <div>
          <dt>Pending</dt>
          <dd>{fmt(card.counts.pending_count)}</dd>
        </div>
        <div>
          <dt>Held</dt>
          <dd>{fmt(card.counts.held_count)}</dd>
        </div>
        <div>
          <dt>Synced limit</dt>
          <dd>{fmt(card.limits.synced_limit)}</dd>
        </div>
      </dl>

      <SyncProgress link={card} />
      {card.counts.held_count > 0 ? (
        <p className="muted small">
          {fmt(card.counts.held_count)} users beyond the plan's synced limit are stored and held; they are synced
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
