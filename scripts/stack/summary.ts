import path from 'node:path';
import { DEMO, PORT_VARS, type PortName } from './config';

export type SummaryInput = {
  ports: Record<PortName, number>;
  started: Set<string>;
  skipped: string[];
  databaseUrl: string;
  databaseEmbedded: boolean;
  redisUrl: string;
  redisEmbedded: boolean;
  memberCount: number;
  demoLink: string;
  pluginStateFile: string;
  logDir: string;
  pid: number;
};

const rel = (p: string) => path.relative(process.cwd(), p) || p;

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/** The one summary printed before `ready`: every URL, the demo guild, how to call the API, how to stop. */
export function summary(s: SummaryInput): string {
  const p = s.ports;
  const line = (label: string, value: string) => `  ${label.padEnd(21)}${value}`;
  const svc = (key: string, label: string, port: PortName, extra = '') =>
    s.started.has(key) ? line(label, `http://127.0.0.1:${p[port]}${extra}   (/healthz /readyz /metrics)`) : line(label, `not built yet (${PORT_VARS[port]}=${p[port]} reserved)`);
  const g = DEMO.guildId;
  const r = DEMO.linkedRoleId;
  const api = `http://127.0.0.1:${p.api}`;
  const out = [
    '',
    '────────────────────────────────────────────────────────────────────────────',
    ' Role Link Service: local stack',
    '────────────────────────────────────────────────────────────────────────────',
    svc('api', 'User Management API', 'api'),
    svc('dashboard', 'Dashboard', 'dashboard'),
    svc('plugin-broker', 'Plugin broker', 'broker'),
    svc('bot-worker', 'Bot worker', 'worker'),
    line('Platform emulator', `http://127.0.0.1:${p.emulator}   (bot API base http://127.0.0.1:${p.emulator}/api, token ${DEMO.botToken})`),
    line('Example plugin', `https://127.0.0.1:${p.plugin}   (self-signed certificate, trusted by the services)`),
    line('PostgreSQL', `${redact(s.databaseUrl)}${s.databaseEmbedded ? '   (embedded, data in .data/postgres)' : ''}`),
    line('Redis', `${s.redisUrl}${s.redisEmbedded ? '   (local redis-server)' : ''}`),
    '',
    ` Demo guild ${g} "${DEMO.guildName}": owner ${DEMO.ownerId}, ${s.memberCount.toLocaleString('en')} members`,
    ...DEMO.roles.map((role) => `   role ${role.id}  ${role.name}${role.id === r ? '   ← linked to the example plugin' : role.id === DEMO.botRoleId ? '   (the bot\'s role)' : ''}`),
    ` Demo link: ${s.demoLink}`,
    '',
    ' Call the API as the plugin does (its token is in the plugin\'s state file):',
    `   TOKEN=$(node -p "require('./${rel(s.pluginStateFile)}')[0].token")`,
    `   curl -s -H "Authorization: Token $TOKEN" ${api}/api/role-link/${g}/${r}/users`,
    `   curl -s -X PUT -H "Authorization: Token $TOKEN" -H 'Content-Type: application/json' \\`,
    `        -d '["100000000000000000","100000000000000001"]' ${api}/api/role-link/${g}/${r}/users`,
    ' See who holds the role on the (emulated) platform:',
    `   curl -s http://127.0.0.1:${p.emulator}/_emulator/guilds/${g}/roles/${r}/holders`,
    '',
    ...(s.skipped.length ? [` Not built yet, skipped: ${s.skipped.join(', ')}`, ''] : []),
    ` Logs: ${rel(s.logDir)}/<service>.log      Ports: ${Object.values(PORT_VARS).join(', ')}`,
    ` Stop: Ctrl-C (or kill -TERM ${s.pid}); everything started here stops with it.`,
    '────────────────────────────────────────────────────────────────────────────',
  ];
  return out.join('\n');
}
