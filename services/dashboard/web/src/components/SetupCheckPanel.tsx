import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { SetupCheck } from '@rolelink/contracts';
import { queries } from '../api/queries';
import { Badge, type BadgeTone } from './Badge';
import { DateTime } from './DateTime';
import styles from './SetupCheckPanel.module.css';
import { Button } from './Button';
import { Card, CardTitle } from './Card';

const MARK: Record<SetupCheck['status'], { sign: string; tone: BadgeTone; label: string }> = {
  pass: { sign: '✓', tone: 'success', label: 'OK' },
  warn: { sign: '!', tone: 'warning', label: 'Check' },
  fail: { sign: '✗', tone: 'danger', label: 'Problem' },
  skip: { sign: '–', tone: 'neutral', label: 'Not checked' },
};

/** A fix as text, its http(s) URLs (the bot's invite) as links opening in a new tab. */
function FixText({ text }: { text: string }) {
  return (
    <>
      {text.split(/(https?:\/\/\S+)/).map((part, i) =>
        i % 2 === 1 ? (
          <a key={i} href={part} target="_blank" rel="noopener noreferrer">
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  );
}

function CheckRow({ check }: { check: SetupCheck }) {
  const mark = MARK[check.status];
  return (
    <li className={styles.check} data-check={check.id} data-status={check.status}>
      <span className={`${styles.sign} ${styles[check.status] ?? ''}`} aria-hidden="true">
        {mark.sign}
      </span>
      <div>
        <p className={styles.title}>
          <strong>{check.title}</strong> <Badge tone={mark.tone}>{mark.label}</Badge>
        </p>
        <p className={styles.detail}>{check.detail}</p>
        {check.roles?.length ? (
          <ul className={styles.roles}>
            {check.roles.map((r) => (
              <li key={r.role_id}>
                <strong>{r.role_name ?? `Deleted role ${r.role_id}`}</strong>: {r.fix}
              </li>
            ))}
          </ul>
        ) : null}
        {check.fix && check.status !== 'pass' && !check.roles?.length ? (
          <p className={styles.fix}>
            <strong>Fix: </strong>
            <FixText text={check.fix} />
          </p>
        ) : null}
      </div>
    </li>
  );
}

/**
 * "Check setup" on the server page: `rolelink doctor`'s checks for this server (the token, the
 * invalid-request budget, the bot's presence, the Server Members intent, Manage Roles, each linked role
 * below the bot, the 2FA requirement), each problem with its fix. Runs only when asked: each run calls the
 * platform a handful of times.
 */
export function SetupCheckPanel({ guildId }: { guildId: string }) {
  const [asked, setAsked] = useState(false);
  const { data, error, isFetching, refetch } = useQuery({ ...queries.setupCheck(guildId), enabled: asked });
  const problems = data?.checks.filter((c) => c.status === 'fail').length ?? 0;
  return (
    <Card as="section" className={styles.panel} aria-labelledby="setup-check-title">
      <div className={styles.head}>
        <div>
          <CardTitle id="setup-check-title">Check setup</CardTitle>
          <p className="muted small">
            Whether the platform lets the bot do its job in this server, and how to fix what it does not.
          </p>
        </div>
        <Button disabled={isFetching} onClick={() => (asked ? void refetch() : setAsked(true))}>
          {isFetching ? 'Checking…' : data ? 'Check again' : 'Check setup'}
        </Button>
      </div>
      {error ? (
        <p className="note note-danger" role="status">
          The check could not run: {error.message}
        </p>
      ) : null}
      {data ? (
        <>
          <p className={data.ok ? 'note' : 'note note-danger'} role="status">
            {data.ok ? 'Ready: every check passes.' : `${problems} problem${problems > 1 ? 's' : ''} to fix.`} Checked{' '}
            <DateTime iso={data.checked_at} />.
          </p>
          <ul className={styles.checks}>
            {data.checks.map((c) => (
              <CheckRow key={c.id} check={c} />
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}
