import type { SignInUser } from '../oauth/sign-in-users';
import { escapeHtml, htmlDocument } from './html';

/** The authorize request a page carries on into its forms. */
export type AuthorizeRequest = { clientId: string; redirectUri: string; scopes: string[]; state?: string };

const SCOPE_TEXT: Record<string, string> = {
  identify: 'know your username and id',
  guilds: 'see the servers you are in and your permissions there',
};

/** Shared with the bot authorization page (bot-authorize-page.ts). */
export const PAGE_STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f2f3f5; color: #1e1f22; }
  main { max-width: 36rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 8px; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  .note { color: #4e5058; font-size: .9rem; }
  fieldset { border: 0; padding: 0; margin: 1rem 0; }
  legend { font-weight: 600; margin-bottom: .5rem; }
  ul { list-style: none; padding: 0; margin: 0; }
  li { margin: 0 0 .75rem; }
  button { font: inherit; cursor: pointer; border-radius: 4px; border: 1px solid #3c45a5; padding: .5rem 1rem; }
  .user { width: 100%; text-align: left; background: #5865f2; color: #fff; }
  .cancel { background: #fff; color: #1e1f22; border-color: #80848e; }
  button:focus-visible { outline: 3px solid #000; outline-offset: 2px; }
  .meta { display: block; font-size: .85rem; color: #4e5058; margin: .25rem 0 0; }
  code { overflow-wrap: anywhere; }
`;

/** The "Sign in as" page: one button per user, in one form that POSTs the choice; Cancel in another. */
export function signInPage(request: AuthorizeRequest, users: SignInUser[], total: number, nonce: string): string {
  const client = escapeHtml(request.clientId);
  const may = request.scopes.map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? `use the scope ${s}`)}</li>`).join('');
  const list = users.length
    ? `<ul>${users.map(userItem).join('')}</ul>`
    : '<p>No one to sign in as: seed a guild (its owner and its <code>members</code>) first.</p>';
  const more = total > users.length ? `<p class="note">Showing the first ${users.length} of ${total} users.</p>` : '';
  return htmlDocument(
    `Sign in to ${request.clientId} — platform emulator`,
    nonce,
    PAGE_STYLE,
    `<h1>Sign in to <strong>${client}</strong></h1>
<p class="note">Platform emulator: no password, pick who you are. Production signs in on the real platform instead.</p>
<p><strong>${client}</strong> will be able to:</p>
<ul class="note">${may}</ul>
<p class="note">You will be sent back to <code>${escapeHtml(request.redirectUri)}</code>.</p>
<form method="post" action="/oauth2/authorize">
${hiddenFields(request)}<input type="hidden" name="action" value="allow">
<fieldset><legend>Sign in as</legend>${list}${more}</fieldset>
</form>
<form method="post" action="/oauth2/authorize">
${hiddenFields(request)}<input type="hidden" name="action" value="cancel">
<button type="submit" class="cancel">Cancel</button>
</form>`,
  );
}

/** The platform shows an error page (it does not redirect) when the request itself is wrong. */
export function errorPage(message: string, nonce: string): string {
  return htmlDocument(
    'Sign-in error — platform emulator',
    nonce,
    PAGE_STYLE,
    `<h1>Sign-in error</h1>\n<p role="alert">${escapeHtml(message)}</p>`,
  );
}

function userItem(user: SignInUser): string {
  const describedBy = `user-${escapeHtml(user.id)}`;
  const name =
    user.globalName === null
      ? escapeHtml(user.username)
      : `${escapeHtml(user.globalName)} (@${escapeHtml(user.username)})`;
  const guilds = user.guilds.map((g) => `${escapeHtml(g.name)}${g.owner ? ' (owner)' : ''}`).join(', ') || 'no guilds';
  return `<li><button type="submit" class="user" name="user_id" value="${escapeHtml(user.id)}" aria-describedby="${describedBy}">${name}</button>
<span class="meta" id="${describedBy}">id ${escapeHtml(user.id)} · ${guilds}</span></li>`;
}

function hiddenFields(request: AuthorizeRequest): string {
  const fields: [string, string][] = [
    ['client_id', request.clientId],
    ['redirect_uri', request.redirectUri],
    ['scope', request.scopes.join(' ')],
    ...(request.state === undefined ? [] : [['state', request.state] as [string, string]]),
  ];
  return fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">\n`).join('');
}
