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

const DEFAULT_PORTS: Record<PortName, number> = {
  api: 3000,
  dashboard: 3001,
  broker: 3002,
  worker: 3003,
  emulator: 3900,
  plugin: 3443,
};

export function readPorts(env: NodeJS.ProcessEnv): Record<PortName, number> {
  const ports = {} as Record<PortName, number>;
  for (const [name, variable] of Object.entries(PORT_VARS) as [PortName, string][]) {
    const raw = env[variable];
    const port = raw === undefined || raw === '' ? DEFAULT_PORTS[name] : Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`${variable}=${raw} is not a port number (1-65535)`);
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

/** Permission bits (the platform's values; decimal strings on the wire) the demo roles use. */
const PERMISSION = {
  administrator: 0x8n,
  manageGuild: 0x20n,
  viewChannel: 0x400n,
  sendMessages: 0x800n,
  manageMessages: 0x2000n,
  readMessageHistory: 0x10000n,
  viewAuditLog: 0x80n,
  manageRoles: 0x10000000n,
} as const;
const bits = (...flags: bigint[]) => flags.reduce((all, flag) => all | flag, 0n).toString();
const EVERYONE_PERMISSIONS = bits(PERMISSION.viewChannel, PERMISSION.sendMessages, PERMISSION.readMessageHistory);

export type DemoUser = { id: string; username: string; role: 'owner' | 'admin' | 'member' };

/**
 * The demo guild the emulator is seeded with. Generated member ids start where the example plugin's list
 * starts. `users` are the people one can sign in as on the emulator's OAuth2 page (the dashboard's
 * local sign-in): the owner, an admin by Manage Server, and a plain member. "Administrators" sits above
 * the bot's role on purpose, so the dashboard has a role it cannot link.
 */
export const DEMO = {
  guildId: '1100000000000000001',
  guildName: 'Role Link Demo',
  ownerId: '90000000000000001',
  botRoleId: '1100000000000000010',
  linkedRoleId: '1100000000000000011',
  everyonePermissions: EVERYONE_PERMISSIONS,
  roles: [
    {
      id: '1100000000000000014',
      name: 'Administrators',
      position: 12,
      permissions: bits(PERMISSION.administrator),
      color: 0xe74c3c,
    },
    {
      id: '1100000000000000010',
      name: 'Role Link Bot',
      position: 10,
      permissions: bits(PERMISSION.manageRoles, PERMISSION.viewAuditLog),
      color: 0x5865f2,
    },
    { id: '1100000000000000011', name: 'Supporter', position: 5, permissions: '0', color: 0xf1c40f },
    {
      id: '1100000000000000012',
      name: 'Moderator',
      position: 3,
      permissions: bits(PERMISSION.manageGuild, PERMISSION.manageMessages),
      color: 0x3498db,
    },
    { id: '1100000000000000013', name: 'Member', position: 1, permissions: '0', color: 0x95a5a6 },
  ],
  /** Text channels: the dashboard's notification channel picker lists them. */
  channels: [
    { id: '1100000000000000001', name: 'general' },
    { id: '1100000000000000021', name: 'admin-alerts' },
  ],
  alertsChannelId: '1100000000000000021',
  administratorsRoleId: '1100000000000000014',
  moderatorRoleId: '1100000000000000012',
  memberRoleId: '1100000000000000013',
  firstMemberId: '100000000000000000',
  botToken: 'emulator-bot-token',
  /** The dashboard's OAuth2 client on the emulator (its defaults); production uses the application's own. */
  oauth: { clientId: '1000000000000000010', clientSecret: 'emulator-oauth-secret' },
  users: [
    { id: '90000000000000001', username: 'demo_owner', role: 'owner' },
    { id: '90000000000000002', username: 'demo_admin', role: 'admin' },
    { id: '90000000000000003', username: 'demo_member', role: 'member' },
  ] satisfies readonly DemoUser[],
  /** A second, small guild, so a signed-in user sees only the guilds they are in (demo_member is in both). */
  otherGuild: {
    id: '1200000000000000001',
    name: 'Other Community',
    ownerId: '90000000000000004',
    botRoleId: '1200000000000000010',
    roles: [
      {
        id: '1200000000000000010',
        name: 'Role Link Bot',
        position: 5,
        permissions: bits(PERMISSION.manageRoles, PERMISSION.viewAuditLog),
        color: 0x5865f2,
      },
      {
        id: '1200000000000000011',
        name: 'Helper',
        position: 2,
        permissions: bits(PERMISSION.manageMessages),
        color: 0x2ecc71,
      },
      { id: '1200000000000000012', name: 'Regular', position: 1, permissions: '0', color: 0x95a5a6 },
    ],
    members: [
      { userId: '90000000000000004', username: 'other_owner', roles: [] },
      { userId: '90000000000000005', username: 'other_helper', roles: ['1200000000000000011', '1200000000000000012'] },
      { userId: '90000000000000006', username: 'other_regular', roles: ['1200000000000000012'] },
      { userId: '90000000000000003', username: 'demo_member', roles: ['1200000000000000012'] },
    ],
  },
  /**
   * demo_member's own server, without the bot (seed `botMember: false`): the dashboard does not list it
   * until demo_member adds the bot through "Add the bot to a server" (the emulator's scope=bot page).
   * As on the platform, the bot's role goes to the bottom of the list when the bot joins, so Fans is above
   * it (the dashboard's "Check setup" says so) until the owner drags it up: on the emulator,
   * `PATCH /_emulator/guilds/1300000000000000001/roles/1300000000000000010 {"position": 2}`.
   */
  botlessGuild: {
    id: '1300000000000000001',
    name: "Member's Own Server",
    ownerId: '90000000000000003',
    botRoleId: '1300000000000000010',
    roles: [
      { id: '1300000000000000010', name: 'Role Link Bot', position: 2, permissions: '0', color: 0x5865f2 },
      { id: '1300000000000000011', name: 'Fans', position: 1, permissions: '0', color: 0xe67e22 },
    ],
    members: [{ userId: '90000000000000003', username: 'demo_member', roles: [] }],
  },
} as const;

/** The demo roles each kind of sign-in user holds: only the admin's Moderator role grants Manage Server. */
const DEMO_USER_ROLES: Record<DemoUser['role'], string[]> = {
  owner: [DEMO.memberRoleId],
  admin: [DEMO.moderatorRoleId, DEMO.memberRoleId],
  member: [DEMO.memberRoleId],
};

/**
 * What a correct installation has on the platform beyond roles (the emulator's guild rules): the
 * application's Server Members intent, switched on in the developer portal. 2FA: no guild requires it.
 */
const INSTALLED = { membersIntent: true } as const;

/** The emulator seed (`EMULATOR_SEED`): the demo guild with `memberCount` generated members, the small other guild and demo_member's bot-less one, each installed correctly. */
export function demoSeed(memberCount: number) {
  const other = DEMO.otherGuild;
  const botless = DEMO.botlessGuild;
  return {
    guilds: [
      {
        id: DEMO.guildId,
        name: DEMO.guildName,
        ownerId: DEMO.ownerId,
        roles: [
          { id: DEMO.guildId, name: '@everyone', position: 0, permissions: DEMO.everyonePermissions },
          ...DEMO.roles,
        ],
        botRoleId: DEMO.botRoleId,
        rules: { ...INSTALLED },
        members: DEMO.users.map((u) => ({ userId: u.id, username: u.username, roles: DEMO_USER_ROLES[u.role] })),
        generateMembers: { count: memberCount, startId: DEMO.firstMemberId, roles: [DEMO.memberRoleId] },
        channels: DEMO.channels.map((c) => ({ ...c })),
      },
      {
        id: other.id,
        name: other.name,
        ownerId: other.ownerId,
        roles: [
          { id: other.id, name: '@everyone', position: 0, permissions: DEMO.everyonePermissions },
          ...other.roles,
        ],
        botRoleId: other.botRoleId,
        rules: { ...INSTALLED },
        members: other.members.map((m) => ({ ...m, roles: [...m.roles] })),
      },
      {
        id: botless.id,
        name: botless.name,
        ownerId: botless.ownerId,
        botMember: false,
        roles: [
          { id: botless.id, name: '@everyone', position: 0, permissions: DEMO.everyonePermissions },
          ...botless.roles,
        ],
        botRoleId: botless.botRoleId,
        rules: { ...INSTALLED },
        members: botless.members.map((m) => ({ ...m, roles: [...m.roles] })),
      },
    ],
  };
}
