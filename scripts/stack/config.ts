// Settings of the local stack: ports (each overridable by its variable) and the demo guild.
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

export const PORT_VARS = {
  api: 'API_PORT',
  dashboard: 'DASHBOARD_PORT',
  broker: 'BROKER_PORT',
  worker: 'WORKER_PORT',
  emulator: 'EMULATOR_PORT',
  plugin: 'PLUGIN_PORT',
} as const;
export type PortName = keyof typeof PORT_VARS;

const DEFAULT_PORTS: Record<PortName, number> = { api: 3000, dashboard: 3001, broker: 3002, worker: 3003, emulator: 3900, plugin: 3443 };

export function readPorts(env: NodeJS.ProcessEnv): Record<PortName, number> {
  const ports = {} as Record<PortName, number>;
  for (const [name, variable] of Object.entries(PORT_VARS) as [PortName, string][]) {
    const raw = env[variable];
    const port = raw === undefined || raw === '' ? DEFAULT_PORTS[name] : Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${variable}=${raw} is not a port number (1-65535)`);
    ports[name] = port;
  }
  const seen = new Map<number, string>();
  for (const [name, port] of Object.entries(ports) as [PortName, number][]) {
    const other = seen.get(port);
    if (other) throw new Error(`${PORT_VARS[name]} and ${other} are both ${port}; give each its own port`);
    seen.set(port, PORT_VARS[name]);
  }
  return ports;
}

/** The demo guild the emulator is seeded with. Generated member ids start where the example plugin's list starts. */
export const DEMO = {
  guildId: '1100000000000000001',
  guildName: 'Role Link Demo',
  ownerId: '90000000000000001',
  botRoleId: '1100000000000000010',
  linkedRoleId: '1100000000000000011',
  roles: [
    { id: '1100000000000000010', name: 'Role Link Bot', position: 10 },
    { id: '1100000000000000011', name: 'Supporter', position: 5 },
    { id: '1100000000000000012', name: 'Moderator', position: 3 },
    { id: '1100000000000000013', name: 'Member', position: 1 },
  ],
  memberRoleId: '1100000000000000013',
  firstMemberId: '100000000000000000',
  botToken: 'emulator-bot-token',
} as const;

export function demoSeed(memberCount: number) {
  return {
    guilds: [
      {
        id: DEMO.guildId,
        name: DEMO.guildName,
        ownerId: DEMO.ownerId,
        roles: DEMO.roles,
        botRoleId: DEMO.botRoleId,
        members: [{ userId: DEMO.ownerId, roles: [DEMO.memberRoleId] }],
        generateMembers: { count: memberCount, startId: DEMO.firstMemberId, roles: [DEMO.memberRoleId] },
      },
    ],
  };
}
