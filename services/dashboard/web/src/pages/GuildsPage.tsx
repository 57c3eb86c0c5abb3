import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { queries } from '../api/queries';
import { ErrorState, Loading } from '../components/ErrorState';
import { useMe } from '../auth/session';
import { usePageTitle } from '../components/PageTitle';
import { SlotsSummary } from '../components/SlotsSummary';
import { guildPath } from '../paths';
import styles from './GuildsPage.module.css';
import { Button, buttonClass } from '../components/Button';
import { Card, CardTitle } from '../components/Card';

/** `/`: the guilds the signed-in user may manage. */
export function GuildsPage() {
  usePageTitle('Your servers');
  const { data, error, isPending, refetch } = useQuery(queries.guilds());
  const { add_bot_url: addBotUrl } = useMe();

  return (
    <>
      <div className="page-header">
        <h1>Your servers</h1>
        {data && data.guilds.length > 0 ? (
          <a className={buttonClass()} href={addBotUrl}>
            Add the bot to a server
          </a>
        ) : null}
      </div>
      {isPending ? <Loading /> : null}
      {error && !data ? <ErrorState error={error} onRetry={() => void refetch()} /> : null}
      {data && data.guilds.length === 0 ? (
        <div className="empty-state">
          <h2>No servers to manage</h2>
          <p>
            Only servers where the bot is present and where you hold the <strong>Manage Server</strong> permission (or
            own the server) are listed. If you manage a server the bot is not in yet, add it there: the platform asks
            which server and shows the permissions the bot needs (Manage Roles, View Channels, Send Messages). Otherwise
            ask the server&apos;s owner for Manage Server. Then come back to this page.
          </p>
          <p className="actions">
            <a className={buttonClass({ tone: 'primary' })} href={addBotUrl}>
              Add the bot to a server
            </a>
            <Button onClick={() => void refetch()}>Check again</Button>
          </p>
        </div>
      ) : null}
      {data && data.guilds.length > 0 ? (
        <ul className={styles.list}>
          {data.guilds.map((g) => (
            <Card as="li" key={g.guild_id} className={styles.card}>
              {g.icon_url ? (
                <img className={styles.icon} src={g.icon_url} alt="" width={48} height={48} />
              ) : (
                <span className={`${styles.icon} ${styles.iconFallback}`} aria-hidden="true">
                  {g.name.slice(0, 1).toUpperCase()}
                </span>
              )}
              <div className={styles.body}>
                <CardTitle>
                  <Link to={guildPath(g.guild_id)}>{g.name}</Link>
                </CardTitle>
                <SlotsSummary guild={g} />
              </div>
            </Card>
          ))}
        </ul>
      ) : null}
    </>
  );
}
