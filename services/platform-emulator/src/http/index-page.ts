import type { EmulatorState } from '../emulator-state';
import type { GuildState } from '../guild-state';
import { escapeHtml as e, htmlDocument } from './html';
import { renderBotUser } from './render';

/** Guild sections beyond this help nobody reading a page; the page says how many it left out. */
const MAX_GUILDS = 50;

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; background: #f2f3f5; color: #1e1f22; }
  main { max-width: 60rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 8px; }
  h1 { font-size: 1.5rem; margin-top: 0; }
  h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #e3e5e8; }
  h3 { font-size: 1rem; margin-bottom: .25rem; }
  .note { color: #4e5058; font-size: .9rem; }
  table { border-collapse: collapse; margin: .5rem 0; }
  th, td { text-align: left; padding: .2rem .75rem .2rem 0; vertical-align: top; }
  th { font-weight: 600; border-bottom: 1px solid #e3e5e8; }
  code { overflow-wrap: anywhere; background: #f2f3f5; padding: 0 .2rem; border-radius: 3px; }
  a { color: #3c45a5; }
  a:focus-visible { outline: 3px solid #000; outline-offset: 2px; }
`;

/** The platform routes, as text: each needs a token, so a link from here would only answer 401. */
const PLATFORM_ROUTES = [
  'GET /users/@me',
  'GET /users/@me/guilds',
  'GET /guilds/:guild',
  'GET /guilds/:guild/roles',
  'GET /guilds/:guild/roles/member-counts',
  'GET /guilds/:guild/members?limit=&after=',
  'GET /guilds/:guild/members/:user',
  'PUT /guilds/:guild/members/:user/roles/:role',
  'DELETE /guilds/:guild/members/:user/roles/:role',
  'POST /oauth2/token',
];

/** The control routes that change state or need a body: listed, not linked. */
const CONTROL_CHANGES = [
  'POST /_emulator/reset',
  'POST /_emulator/seed',
  'PATCH /_emulator/config',
  'POST /_emulator/guilds/:guild/members',
  'DELETE /_emulator/guilds/:guild/members/:user',
  'PUT /_emulator/guilds/:guild/members/:user/roles',
  'PUT /_emulator/guilds/:guild/shared-limit',
  'PATCH /_emulator/guilds/:guild/rules',
  'PATCH /_emulator/guilds/:guild/roles/:role',
  'DELETE /_emulator/users/:user',
];

const link = (href: string, text = href) => `<a href="${e(href)}">${e(text)}</a>`;
const codeList = (items: readonly string[]) => `<ul>${items.map((i) => `<li><code>${e(i)}</code></li>`).join('')}</ul>`;

/**
 * The emulator's index page at `/`: what it holds (guilds, roles, the bot user), where sign-in starts,
 * the platform API base and the control API, so every URL the local stack prints leads somewhere.
 * Self-contained and script-free; every value is escaped (seeds may carry any names).
 */
export function indexPage(state: EmulatorState, nonce: string): string {
  const bot = renderBotUser(state.botUserId);
  const guilds = state.allGuilds();
  const client = state.oauthClient.clientId;
  const authorize = `/oauth2/authorize?response_type=code&client_id=${encodeURIComponent(client)}&scope=identify%20guilds&redirect_uri=<your callback URL>`;
  const shown = guilds.slice(0, MAX_GUILDS);
  const more =
    guilds.length > shown.length
      ? `<p class="note">Showing the first ${shown.length} of ${guilds.length} guilds.</p>`
      : '';
  return htmlDocument(
    'Platform emulator',
    nonce,
    STYLE,
    `<h1>Platform emulator</h1>
<p class="note">A local stand-in for the chat platform's REST API v10 (the part the bot uses) and its OAuth2 sign-in. Nothing here is real: never expose it.</p>

<h2>What it holds</h2>
<p>The bot user: <strong>${e(bot.username)}</strong>, id <code>${e(bot.id)}</code>, a member of every guild except those seeded with <code>"botMember": false</code> until it is added (below). Its token is <code>EMULATOR_BOT_TOKEN</code> (the local stack prints it).</p>
${guilds.length ? shown.map((g) => guildSection(g, state.botUserId)).join('\n') + more : '<p>No guilds yet: seed some with <code>POST /_emulator/seed</code> or <code>EMULATOR_SEED</code>.</p>'}

<h2>Sign-in (OAuth2)</h2>
<p>Client <code>${e(client)}</code>. A client such as the dashboard sends people to</p>
<p><code>${e(authorize)}</code></p>
<p>a "Sign in as" page listing each guild's owner and the members a seed names one by one; its answer goes back to the redirect URL with a code, which the client redeems at <code>POST /api/v10/oauth2/token</code>.</p>
<p>Adding the bot to a guild: <code>${e(`/oauth2/authorize?client_id=${encodeURIComponent(client)}&scope=bot&permissions=<bits>`)}</code>, a page listing who may add it where (owner or Manage Server, bot not there yet).</p>

<h2>Platform API</h2>
<p>Base <code>/api/v10</code> (what a REST client takes as its API base is <code>/api</code>), with <code>Authorization: Bot &lt;token&gt;</code>; <code>/users/@me</code> and <code>/users/@me/guilds</code> also take a signed-in user's <code>Bearer</code> token. Rate limited as on the platform.</p>
${codeList(PLATFORM_ROUTES)}

<h2>Control API</h2>
<p class="note">No token, no rate limits: for tests and local runs.</p>
<ul>
<li>${link('/_emulator/stats')}: requests, rate-limit answers, role changes</li>
<li>${link('/_emulator/config')}: the limits in force</li>
<li><code>/_emulator/guilds/:guild/roles/:role/holders</code> and <code>/_emulator/guilds/:guild/audit-log</code>: linked per guild above</li>
</ul>
${codeList(CONTROL_CHANGES)}`,
  );
}

function guildSection(guild: GuildState, botUserId: string): string {
  const base = `/_emulator/guilds/${guild.id}`;
  const rows = [...guild.roles]
    .sort((a, b) => b.position - a.position)
    .map((role) => {
      const everyone = guild.isEveryone(role);
      const note =
        role === guild.botRole
          ? "the bot's role"
          : everyone
            ? 'every member'
            : role.managed
              ? 'managed: nobody can assign it'
              : guild.canManage(role, botUserId)
                ? ''
                : 'above the bot: it cannot change this role';
      // @everyone's holders are every member: a million ids are no page to link to.
      const holders = everyone
        ? String(guild.members.size)
        : link(`${base}/roles/${role.id}/holders`, String(guild.members.count(role.index)));
      return `<tr><td>${e(role.name)}</td><td><code>${e(role.id)}</code></td><td>${role.position}</td><td>${holders}</td><td>${e(note)}</td></tr>`;
    })
    .join('');
  return `<h3>${e(guild.name)}</h3>
<p>Guild <code>${e(guild.id)}</code>, owner <code>${e(guild.ownerId)}</code>, ${guild.members.size.toLocaleString('en')} members (the bot included) · ${link(`${base}/audit-log`, 'audit log')} · ${link(`${base}/rules`, 'rules')}</p>
<table><thead><tr><th>Role</th><th>Id</th><th>Position</th><th>Holders</th><th>Note</th></tr></thead><tbody>${rows}</tbody></table>`;
}
