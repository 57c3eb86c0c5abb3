import { BOT_PERMISSIONS, botInviteUrl, platformAuthorizeUrl } from './bot-invite';

describe('botInviteUrl', () => {
  it('asks for Manage Roles, View Channels, Send Messages and View Audit Log only (268438656)', () => {
    expect(BOT_PERMISSIONS).toBe(268438656n);
    const url = new URL(botInviteUrl('https://discord.com/oauth2/authorize', '123'));
    expect(url.origin + url.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: '123', scope: 'bot', permissions: '268438656' });
  });

  it('pins one server when given one', () => {
    const url = new URL(botInviteUrl('http://127.0.0.1:3900/oauth2/authorize', '123', '456'));
    expect(url.searchParams.get('guild_id')).toBe('456');
    expect(url.searchParams.get('disable_guild_select')).toBe('true');
  });
});

describe('platformAuthorizeUrl', () => {
  it("is the configured platform's authorize page: the one set, else the one at the REST base's origin", () => {
    expect(platformAuthorizeUrl('http://127.0.0.1:3900/api')).toBe('http://127.0.0.1:3900/oauth2/authorize');
    expect(platformAuthorizeUrl('https://discord.com/api/v10')).toBe('https://discord.com/oauth2/authorize');
    expect(platformAuthorizeUrl('http://emulator:3900/api', 'http://127.0.0.1:3900/oauth2/authorize')).toBe(
      'http://127.0.0.1:3900/oauth2/authorize',
    );
    expect(platformAuthorizeUrl(undefined)).toBe('https://discord.com/oauth2/authorize');
  });
});
