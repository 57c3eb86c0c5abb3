import path from 'node:path';
import { DEMO, PORT_VARS, type PortName } from './config';
import type { DemoSync } from './demo-link';
import type { Platform } from './platform';

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
  /** The demo link's first sync, when the link exists (null: not created, so nothing to wait for). */
  demoSync: DemoSync | null;
  pluginStateFile: string;
  /** The example plugin's certificate, per instance (.data/plugin-tls-<hash>/ on other ports): `--ca` and the quickstart plugin need it. */
  pluginCertFile: string;
  logDir: string;
  pid: number;
  /** Absent: the emulator (the default). */
  platform?: Platform;
};

const rel = (p: string) => path.relative(process.cwd(), p) || p;

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

const SHOW = `./rolelink link show ${DEMO.guildId} ${DEMO.linkedRoleId}`;

function demoSyncLines(sync: DemoSync | null): string[] {
  if (!sync) return [];
  if (sync.synced) return [`   demo list synced: ${sync.detail} in ${sync.seconds} s`];
  return [`   demo list: first sync still in progress after ${sync.seconds} s (${sync.detail}); watch it: ${SHOW}`];
}

/**
 * The plugin's side of the API, in an order that works as printed: read, add (never held), then a
 * replace that trips the shrink hold on purpose (docs/api.md) and the two ways to confirm it. The counts
 * assume the example plugin's contiguous demo list (IDs from DEMO.firstMemberId), of the size last read.
 */
function callTheApi(s: SummaryInput, api: string): string[] {
  const members = s.demoSync?.members ?? 20;
  const first = BigInt(DEMO.firstMemberId);
  const keep = JSON.stringify([first.toString(), (first + 1n).toString()]);
  const after = members + 1;
  const removals = after - 2;
  // The shrink rule (docs/api.md): held when a replace removes at least 25% and at least 10 members.
  const held = removals >= 10 && removals * 4 >= after;
  // -w '\\n' where the answer is shown: the API's JSON has no final newline, so the prompt would stick to it.
  const shown = "curl -s -w '\\n'";
  const auth = '-H "Authorization: Token $TOKEN"';
  const put = `-X PUT ${auth} -H 'Content-Type: application/json' \\`;
  const body = `     -d '${keep}' $API/users`;
  return [
    " Call the API as the plugin does, from this directory (its token is in the plugin's state file):",
    `   TOKEN=$(node -p "require('./${rel(s.pluginStateFile)}').find((l) => l.roleId === '${DEMO.linkedRoleId}').token")`,
    `   API=${api}/api/role-link/${DEMO.guildId}/${DEMO.linkedRoleId}`,
    `   ${shown} ${auth} $API/users                              # the list: ${members} members`,
    `   ${shown} -X POST ${auth} $API/users/${(first + BigInt(members)).toString()}   # add one: ${after}`,
    ...(held
      ? [
          ` Replace the list with 2 members: this removes ${removals} of ${after}, so it is held (409) and nothing changes yet:`,
        ]
      : [
          ` Replace the list with 2 members (held with a 409 when that removes at least 25% and at least 10 members, so not`,
          `   now; \`./rolelink link delete ${DEMO.guildId} ${DEMO.linkedRoleId}\` and a new start bring back the demo list):`,
        ]),
    `   HELD=$(curl -s ${put}`,
    `${body}); echo "$HELD"`,
    ' Confirm it by resending it within the hour with the change_id from the 409:',
    `   ${shown} ${put}`,
    `     -H "X-RoleLink-Confirm: $(node -p 'JSON.parse(process.argv[1]).errors.change_id' "$HELD")" \\`,
    body,
    s.started.has('dashboard')
      ? ` or as the owner, in the dashboard (http://127.0.0.1:${s.ports.dashboard}, sign in as demo_owner, Apply removals) or with`
      : ' or as the owner, with',
    `   ./rolelink removals apply ${DEMO.guildId} ${DEMO.linkedRoleId}`,
    ' and then send the same PUT again, without the header.',
  ];
}

/**
 * docs/plugin-quickstart.md step 3 as this stack needs it: on other ports the certificate is in this
 * instance's folder and the API elsewhere, and the plugin must serve the certificate this broker trusts;
 * its own port moves with the stack's, since another stack's quickstart plugin may hold the default.
 */
function quickstartLines(s: SummaryInput): string[] {
  const cert = rel(s.pluginCertFile);
  const run = 'node --import tsx examples/quickstart-plugin/src/main.ts';
  const isDefault = cert === path.join('.data', 'plugin-tls', 'cert.pem') && s.ports.api === 3000;
  if (isDefault) return [`   run the quickstart plugin with it: ${run}`];
  return [
    "   run the quickstart plugin with it (this stack's certificate, API and a port of its own):",
    `     export QUICKSTART_TLS_CERT=${cert} QUICKSTART_TLS_KEY=${path.join(path.dirname(cert), 'key.pem')}`,
    `     export ROLELINK_API_URL=http://127.0.0.1:${s.ports.api} QUICKSTART_PORT=${s.ports.plugin + 1000}`,
    `     ${run}`,
  ];
}

/** The one summary printed before `ready`: every URL, the demo guild, how to call the API, how to stop. */
export function summary(s: SummaryInput): string {
  if (s.platform?.kind === 'real') return realPlatformSummary(s, s.platform);
  const p = s.ports;
  const line = (label: string, value: string) => `  ${label.padEnd(21)}${value}`;
  const svc = (key: string, label: string, port: PortName, extra = '') =>
    s.started.has(key)
      ? line(label, `http://127.0.0.1:${p[port]}${extra}   (/healthz /readyz /metrics)`)
      : line(label, `not built yet (${PORT_VARS[port]}=${p[port]} reserved)`);
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
    line(
      'Platform emulator',
      `http://127.0.0.1:${p.emulator}   (bot API base http://127.0.0.1:${p.emulator}/api, token ${DEMO.botToken})`,
    ),
    line('Example plugin', `https://127.0.0.1:${p.plugin}   (self-signed certificate, trusted by the services)`),
    line('Plugin certificate', `${rel(s.pluginCertFile)}   (key.pem beside it; trusted by this stack's broker)`),
    `   check a plugin: ./rolelink plugin check <url> --ca ${rel(s.pluginCertFile)}`,
    ...quickstartLines(s),
    `   see each event kind reach it: ./rolelink trigger <kind> ${g} ${r} --ca ${rel(s.pluginCertFile)}`,
    line('PostgreSQL', `${redact(s.databaseUrl)}${s.databaseEmbedded ? '   (embedded, data in .data/postgres)' : ''}`),
    line('Redis', `${s.redisUrl}${s.redisEmbedded ? '   (local redis-server)' : ''}`),
    '',
    ` Demo guild ${g} "${DEMO.guildName}": owner ${DEMO.ownerId}, ${s.memberCount.toLocaleString('en')} members`,
    ...DEMO.roles.map(
      (role) =>
        `   role ${role.id}  ${role.name}${role.id === r ? '   ← linked to the example plugin' : role.id === DEMO.botRoleId ? "   (the bot's role)" : ''}`,
    ),
    ` Demo link: ${s.demoLink}`,
    ...demoSyncLines(s.demoSync),
    '',
    ...(s.started.has('dashboard')
      ? [
          ` Open the dashboard: http://127.0.0.1:${p.dashboard}  and sign in on the emulator's page as`,
          ...DEMO.users.map(
            (u) =>
              `   ${u.username.padEnd(12)} ${u.role === 'owner' ? 'the server owner (everything, incl. Apply removals)' : u.role === 'admin' ? 'an admin with Manage Server' : 'a member without it (sees no server)'}`,
          ),
          '',
        ]
      : []),
    ...callTheApi(s, api),
    ' See who holds the role on the (emulated) platform:',
    `   curl -s -w '\\n' http://127.0.0.1:${p.emulator}/_emulator/guilds/${g}/roles/${r}/holders`,
    '',
    ...(s.skipped.length ? [` Not built yet, skipped: ${s.skipped.join(', ')}`, ''] : []),
    ` Logs: ${rel(s.logDir)}/<service>.log      Ports: ${Object.values(PORT_VARS).join(', ')}`,
    ` Stop: Ctrl-C (or kill -TERM ${s.pid}); everything started here stops with it.`,
    '────────────────────────────────────────────────────────────────────────────',
  ];
  return out.join('\n');
}

/** The summary on a real platform: the services, the platform, and the first steps on the user's own server. */
function realPlatformSummary(s: SummaryInput, platform: Extract<Platform, { kind: 'real' }>): string {
  const p = s.ports;
  const line = (label: string, value: string) => `  ${label.padEnd(21)}${value}`;
  const svc = (key: string, label: string, port: PortName) =>
    s.started.has(key)
      ? line(label, `http://127.0.0.1:${p[port]}   (/healthz /readyz /metrics)`)
      : line(label, `not built yet (${PORT_VARS[port]}=${p[port]} reserved)`);
  const dashboard = platform.dashboardPublicUrl ?? `http://127.0.0.1:${p.dashboard}`;
  const guild = platform.guildId ?? '<serverId>';
  return [
    '',
    '────────────────────────────────────────────────────────────────────────────',
    ' Role Link Service: local stack on your platform',
    '────────────────────────────────────────────────────────────────────────────',
    svc('api', 'User Management API', 'api'),
    svc('dashboard', 'Dashboard', 'dashboard'),
    svc('plugin-broker', 'Plugin broker', 'broker'),
    svc('bot-worker', 'Bot worker', 'worker'),
    line('Platform', `${platform.apiUrl}   (your bot's token; no emulator, no demo guild)`),
    line('Example plugin', `https://127.0.0.1:${p.plugin}   (self-signed certificate, trusted by the services)`),
    line('PostgreSQL', `${redact(s.databaseUrl)}${s.databaseEmbedded ? '   (embedded, data in .data/postgres)' : ''}`),
    line('Redis', `${s.redisUrl}${s.redisEmbedded ? '   (local redis-server)' : ''}`),
    '',
    ` Sign in: ${dashboard}  (the platform's sign-in page; redirect URI ${dashboard}/auth/callback)`,
    ` Check a server: ./rolelink doctor ${guild}`,
    ` Link a role to a plugin: ./rolelink link create ${guild} <roleId> --plugin-url <url>   (docs/real-platform.md)`,
    '',
    ...(s.skipped.length ? [` Not built yet, skipped: ${s.skipped.join(', ')}`, ''] : []),
    ` Logs: ${rel(s.logDir)}/<service>.log      Ports: ${Object.values(PORT_VARS).join(', ')}`,
    ` Stop: Ctrl-C (or kill -TERM ${s.pid}); everything started here stops with it.`,
    '────────────────────────────────────────────────────────────────────────────',
  ].join('\n');
}
