// PostgreSQL connections at the shipped maximum: every process's pool times its Deployment's largest replica
// count (autoscaler maximum, KEDA's maxReplicaCount, or replicas), plus one per Job, must fit the stated
// max_connections (k8s/environment.yaml postgresMaxConnections) less a reserve. Pools open on demand, so an
// overshoot would surface exactly when load scales the pods up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { asArray, at, get, type Manifest, type Problem } from './types';

/** superuser_reserved_connections (3) plus room for an administrator's psql, backups and monitoring. */
export const RESERVED_CONNECTIONS = 13;

/** A container's pool as its service sizes it (the env.ts defaults of each service, overridden by env). */
function poolOf(component: string, env: Record<string, string>): number {
  const n = (name: string, fallback: number) => Number(env[name] ?? fallback);
  switch (component) {
    case 'api':
      return n('DB_POOL_MAX', 20); // services/api/src/env.ts
    case 'plugin-broker':
      return n('DB_POOL_MAX', 10); // services/plugin-broker/src/env.ts
    case 'bot-worker':
      return n('WORKER_CONCURRENCY', 8) + 4; // services/bot-worker/src/main.ts
    default:
      return 10; // packages/db/src/client/client.ts: the dashboard's and the CLI's
  }
}

/**
 * A container's direct connections (DATABASE_SESSION_URL) when PgBouncer pools the rest (docs/pgbouncer.md):
 * the session pools main.ts sizes. Every periodic sweep's lock is a session lock, so each owner has one;
 * the CLI holds no session.
 */
function sessionPoolOf(component: string, env: Record<string, string>): number {
  switch (component) {
    case 'api':
      return 2; // services/api/src/main.ts's session pool: the sweeps' and the claims' presence
    case 'plugin-broker':
      return 2; // services/plugin-broker/src/main.ts: one holds the event locks
    case 'bot-worker':
      return Number(env.WORKER_CONCURRENCY ?? 8); // services/bot-worker/src/main.ts: one per sync slice (the sweeps share it)
    case 'dashboard':
      return 1; // services/dashboard/src/main.ts: the audit retention sweep's
    default:
      return 0;
  }
}

/** A setting of the pgbouncer.ini in components/pgbouncer's ConfigMap, or NaN. */
function pgbouncerSetting(all: Manifest[], key: string): number {
  const ini = all.find((m) => m.doc.kind === 'ConfigMap' && get(m.doc, 'metadata', 'name') === 'rolelink-pgbouncer');
  const text = get(ini?.doc, 'data', 'pgbouncer.ini');
  const match = new RegExp(`^\\s*${key}\\s*=\\s*(\\d+)\\s*$`, 'm').exec(typeof text === 'string' ? text : '');
  return Number(match?.[1] ?? NaN);
}

export function connectionBudget(dir: string, all: Manifest[], problems: Problem[]): string {
  const environment = parse(readFileSync(path.join(dir, 'environment.yaml'), 'utf8')) as unknown;
  const max = Number(get(environment, 'data', 'postgresMaxConnections'));
  const scalerMax = (name: string) =>
    all
      .filter((m) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(String(m.doc.kind)))
      .filter((m) => get(m.doc, 'spec', 'scaleTargetRef', 'name') === name)
      .map((m) => Number(get(m.doc, 'spec', 'maxReplicas') ?? get(m.doc, 'spec', 'maxReplicaCount')));
  const pooler = all.find(
    (m) => m.doc.kind === 'Deployment' && get(m.doc, 'metadata', 'name') === 'rolelink-pgbouncer',
  );
  // With PgBouncer: the services' pools count against its max_client_conn (of one replica: the PDB lets one
  // take every client), and PostgreSQL sees its server pools plus the direct connections.
  let total = 0;
  let clients = 0;
  const parts: string[] = [];
  const clientParts: string[] = [];
  for (const m of all.filter((x) => x.doc.kind === 'Deployment' || x.doc.kind === 'Job')) {
    const component = String(get(m.doc, 'spec', 'template', 'metadata', 'labels', 'app.kubernetes.io/component'));
    const container = asArray(get(m.doc, 'spec', 'template', 'spec', 'containers'))[0];
    const env = Object.fromEntries(
      asArray(get(container, 'env')).map((e) => [String(get(e, 'name')), String(get(e, 'value'))]),
    );
    const name = String(get(m.doc, 'metadata', 'name'));
    const replicas =
      m.doc.kind === 'Job' ? 1 : Math.max(Number(get(m.doc, 'spec', 'replicas') ?? 1), ...scalerMax(name));
    const migrate = m.doc.kind === 'Job' && component === 'migrate';
    if (component === 'pgbouncer') {
      const server = pgbouncerSetting(all, 'max_db_connections');
      total += server * replicas;
      parts.push(`${at(m)} max_db_connections ${server}×${replicas}`);
      continue;
    }
    const pool = migrate ? 1 : poolOf(component, env);
    if (pooler && !migrate) {
      clients += pool * replicas;
      clientParts.push(`${at(m)} ${pool}×${replicas}`);
      const direct = sessionPoolOf(component, env);
      total += direct * replicas;
      if (direct) parts.push(`${at(m)} direct ${direct}×${replicas}`);
    } else {
      total += pool * replicas;
      parts.push(`${at(m)} ${pool}×${replicas}`);
    }
  }
  if (!Number.isFinite(max) || !(total <= max - RESERVED_CONNECTIONS))
    problems.push({
      file: 'environment.yaml',
      where: 'postgresMaxConnections',
      message: `${total} PostgreSQL connections at the autoscalers' maximum (${parts.join(', ')}) exceed max_connections ${max} less ${RESERVED_CONNECTIONS} reserved: lower DB_POOL_MAX, WORKER_CONCURRENCY or maxReplicas, or raise max_connections`,
    });
  if (pooler) {
    const maxClients = pgbouncerSetting(all, 'max_client_conn');
    if (!(clients <= maxClients))
      problems.push({
        file: 'components/pgbouncer',
        where: 'max_client_conn',
        message: `${clients} client connections to PgBouncer at the autoscalers' maximum (${clientParts.join(', ')}) exceed one replica's max_client_conn ${maxClients}: raise max_client_conn or lower the pools`,
      });
    return `connections: ${total} to PostgreSQL (PgBouncer's server pools and the direct ones), within max_connections ${max} less ${RESERVED_CONNECTIONS} reserved; ${clients} to PgBouncer, within max_client_conn ${maxClients}`;
  }
  return `connections: ${total} at the autoscalers' maximum, within max_connections ${max} less ${RESERVED_CONNECTIONS} reserved`;
}
