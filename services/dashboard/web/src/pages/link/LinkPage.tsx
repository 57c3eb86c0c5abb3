import { NavLink, Outlet, useParams } from 'react-router';
import { dashboardApi } from '../../api/dashboard-api';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { ErrorState, Loading } from '../../components/ErrorState';
import { LinkCardView } from '../../components/LinkCardView';
import { usePageTitle } from '../../components/PageTitle';
import { roleLabel } from '../../components/RoleName';
import { usePolling } from '../../hooks/use-page-visible';
import { useResource } from '../../hooks/use-resource';
import { linkPaths } from '../../paths';
import type { LinkContext } from './link-context';

const REFRESH_MS = 5_000;

/** `/guilds/:guildId/links/:roleId/*`: the card on top, then the Configuration | Settings | Members | Health tabs. */
export function LinkPage() {
  const params = useParams();
  const guildId = params.guildId ?? '';
  const roleId = params.roleId ?? '';
  const key = `${guildId}/${roleId}`;
  const card = useResource((signal) => dashboardApi.link(guildId, roleId, signal), key);
  // The guild tells whether the viewer owns the server (owner-only actions) and gives the breadcrumb its name.
  const guild = useResource((signal) => dashboardApi.guild(guildId, signal), guildId);
  usePolling(() => void card.reload(), REFRESH_MS, card.data !== undefined);
  const name = card.data ? roleLabel(card.data.role, card.data.role_id) : null;
  usePageTitle(name ? `${name} link` : null);

  if (card.loading) return <Loading />;
  if (!card.data) return card.error ? <ErrorState error={card.error} onRetry={() => void card.reload()} /> : null;

  const paths = linkPaths(guildId, roleId);
  const owner = guild.data?.owner;
  const context: LinkContext = {
    guildId,
    roleId,
    card: card.data,
    guild: guild.data,
    owner: owner ?? false,
    roleName: name ?? roleId,
    reloadCard: card.reload,
    setCard: card.setData,
  };

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current={name} />
      <h1 className="visually-hidden">{name} role link</h1>
      <LinkCardView card={card.data} owner={owner} onChanged={() => void card.reload()} headingLevel="h2" linkToPage={false} />

      <nav className="tabs" aria-label="Link sections">
        <NavLink to={paths.config} end>
          Configuration
        </NavLink>
        <NavLink to={paths.settings}>Settings</NavLink>
        <NavLink to={paths.members}>Members</NavLink>
        <NavLink to={paths.health}>Health</NavLink>
      </nav>
      <section className="tab-panel">
        <Outlet context={context} />
      </section>
    </>
  );
}
