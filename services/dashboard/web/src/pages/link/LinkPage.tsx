import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useParams } from 'react-router';
import { pollEvery, queries } from '../../api/queries';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { ErrorState, Loading } from '../../components/ErrorState';
import { LinkCardView } from '../../components/LinkCardView';
import { usePageTitle } from '../../components/PageTitle';
import { roleLabel } from '../../components/RoleName';
import { linkPaths } from '../../paths';
import type { LinkContext } from './link-context';
import styles from './LinkPage.module.css';

const REFRESH_MS = 5_000;

/** `/guilds/:guildId/links/:roleId/*`: the card on top, then the Configuration | Settings | Members | Health | Events tabs. */
export function LinkPage() {
  const params = useParams();
  const guildId = params.guildId ?? '';
  const roleId = params.roleId ?? '';
  const card = useQuery({ ...queries.link(guildId, roleId), refetchInterval: pollEvery(REFRESH_MS) });
  // The guild tells whether the viewer owns the server (owner-only actions) and gives the breadcrumb its name.
  const guild = useQuery(queries.guild(guildId));
  const name = card.data ? roleLabel(card.data.role, card.data.role_id) : null;
  usePageTitle(name ? `${name} link` : null);

  if (card.isPending) return <Loading />;
  if (!card.data) return card.error ? <ErrorState error={card.error} onRetry={() => void card.refetch()} /> : null;

  const paths = linkPaths(guildId, roleId);
  const owner = guild.data?.owner;
  const context: LinkContext = {
    guildId,
    roleId,
    card: card.data,
    guild: guild.data,
    owner: owner ?? false,
    roleName: name ?? roleId,
  };

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current={name} />
      <h1 className="visually-hidden">{name} role link</h1>
      <LinkCardView card={card.data} owner={owner} headingLevel="h2" linkToPage={false} />

      <nav className={styles.tabs} aria-label="Link sections">
        <NavLink to={paths.config} end>
          Configuration
        </NavLink>
        <NavLink to={paths.settings}>Settings</NavLink>
        <NavLink to={paths.members}>Members</NavLink>
        <NavLink to={paths.health}>Health</NavLink>
        <NavLink to={paths.events}>Events</NavLink>
      </nav>
      <section className={styles.panel}>
        <Outlet context={context} />
      </section>
    </>
  );
}
