import { PermissionFlagsBits } from 'discord-api-types/v10';
import { escapeHtml, htmlDocument } from './html';
import { PAGE_STYLE } from './sign-in-page';

/** A bot authorization request (/oauth2/authorize?scope=bot…), as its forms carry it on. */
export type BotAuthorizeRequest = {
  clientId: string;
  scopes: string[];
  permissions: bigint;
  /** Preselected guild; with `disableGuildSelect`, the only one offered. */
  guildId?: string;
  disableGuildSelect: boolean;
  redirectUri?: string;
  state?: string;
};

/** One button of the page: this user adds the bot to this guild. */
export type BotCandidate = { userId: string; userName: string; guildId: string; guildName: string; owner: boolean };

const PERMISSION_NAMES = new Map<bigint, string>(
  Object.entries(PermissionFlagsBits).map(([name, bit]) => [bit, name.replace(/([a-z])([A-Z])/g, '$1 $2')]),
);

/** The permission names of a bitfield, for the page (unknown bits by value). */
export function permissionNames(bits: bigint): string[] {
  const names: string[] = [];
  for (let bit = 1n; bit <= bits; bit <<= 1n) if (bits & bit) names.push(PERMISSION_NAMES.get(bit) ?? `bit ${bit}`);
  return names;
}

/**
 * The platform's "Add to server" page, as a list instead of a login plus a server picker: one button per
 * signed-in-able user and guild where they may add the bot (owner or Manage Server, bot not there yet).
 */
export function botAuthorizePage(request: BotAuthorizeRequest, candidates: BotCandidate[], nonce: string): string {
  const client = escapeHtml(request.clientId);
  const names = permissionNames(request.permissions);
  const asks = names.length
    ? `<ul class="note">${names.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`
    : '<p class="note">No permissions (the bot joins with an empty role).</p>';
  const list = candidates.length
    ? `<ul>${candidates.map(candidateItem).join('')}</ul>`
    : `<p role="status">No one can add the bot${request.guildId === undefined ? '' : ` to guild ${escapeHtml(request.guildId)}`}: it is already in every guild, or no user holds Manage Server where it is missing. Seed a guild with <code>"botMember": false</code>.</p>`;
  const back =
    request.redirectUri === undefined
      ? ''
      : `<p class="note">You will be sent back to <code>${escapeHtml(request.redirectUri)}</code>.</p>`;
  return htmlDocument(
    `Add ${request.clientId} to a server — platform emulator`,
    nonce,
    PAGE_STYLE,
    `<h1>Add <strong>${client}</strong> to a server</h1>
<p class="note">Platform emulator: no password, pick who you are and the server. Production asks on the real platform instead.</p>
<p>The bot's role will have these permissions (${escapeHtml(request.permissions.toString())}):</p>
${asks}${back}
<form method="post" action="/oauth2/authorize">
${hiddenFields(request)}<input type="hidden" name="action" value="allow">
<fieldset><legend>Authorize as, in</legend>${list}</fieldset>
</form>
<form method="post" action="/oauth2/authorize">
${hiddenFields(request)}<input type="hidden" name="action" value="cancel">
<button type="submit" class="cancel">Cancel</button>
</form>`,
  );
}

/** After Authorize without a redirect_uri: the platform says it is done and the user goes back themselves. */
export function botAddedPage(clientId: string, guildName: string, permissions: bigint, nonce: string): string {
  const names = permissionNames(permissions).join(', ') || 'none';
  return htmlDocument(
    `Authorized — platform emulator`,
    nonce,
    PAGE_STYLE,
    `<h1>Authorized</h1>
<p role="status"><strong>${escapeHtml(clientId)}</strong> was added to <strong>${escapeHtml(guildName)}</strong>.</p>
<p class="note">Its role's permissions: ${escapeHtml(names)}. You can close this tab and go back to the app.</p>`,
  );
}

export function botCancelledPage(nonce: string): string {
  return htmlDocument(
    'Cancelled — platform emulator',
    nonce,
    PAGE_STYLE,
    '<h1>Cancelled</h1>\n<p role="status">The bot was not added to any server.</p>',
  );
}

function candidateItem(c: BotCandidate): string {
  const describedBy = `add-${escapeHtml(c.userId)}-${escapeHtml(c.guildId)}`;
  return `<li><button type="submit" class="user" name="choice" value="${escapeHtml(`${c.userId}:${c.guildId}`)}" aria-describedby="${describedBy}">${escapeHtml(c.userName)} → ${escapeHtml(c.guildName)}</button>
<span class="meta" id="${describedBy}">user ${escapeHtml(c.userId)}${c.owner ? ' (owner)' : ' (Manage Server)'} · guild ${escapeHtml(c.guildId)}</span></li>`;
}

function hiddenFields(r: BotAuthorizeRequest): string {
  const fields: [string, string | undefined][] = [
    ['client_id', r.clientId],
    ['scope', r.scopes.join(' ')],
    ['permissions', r.permissions.toString()],
    ['guild_id', r.guildId],
    ['disable_guild_select', r.disableGuildSelect ? 'true' : undefined],
    ['redirect_uri', r.redirectUri],
    ['state', r.state],
  ];
  return fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">\n`)
    .join('');
}
