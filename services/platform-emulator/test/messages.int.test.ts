import { API } from '@discordjs/core/http-only';
import { REST } from '@discordjs/rest';
import type { RESTError } from 'discord-api-types/v10';
import { startEmulator, type RunningEmulator } from '../src/server';
import { DEFAULT_CONFIG } from '../src/options';
import { call, control, GUILD, NOT_A_MEMBER, OWNER, smallSeed, USERS, TEST_USER_AGENT } from './support/fixtures';

/** An id no account has (NOT_A_MEMBER exists, outside the guild). */
const NEVER_AN_ACCOUNT = '488888888888888888';

// DMs, channel messages and the channel list (the bot's notifications), through
// @discordjs/core as the bot worker calls them, and raw where the platform's error bodies are checked.

describe('messages and channels', () => {
  let emulator: RunningEmulator;
  let api: API;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${emulator.apiBase}/v10${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bot ${emulator.botToken}`,
        'Content-Type': 'application/json',
        'User-Agent': TEST_USER_AGENT,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as RESTError };
  };

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: smallSeed(), globalPerSecond: 1000 });
    api = new API(
      new REST({ api: emulator.apiBase, version: '10', hashSweepInterval: 0, handlerSweepInterval: 0 }).setToken(
        emulator.botToken,
      ),
    );
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    emulator.state.reset();
    emulator.state.seed(smallSeed());
  });

  it('opens one DM channel per user and keeps the messages posted to it', async () => {
    const dm = await api.users.createDM(OWNER);
    expect((await api.users.createDM(OWNER)).id).toBe(dm.id);
    await api.channels.createMessage(dm.id, { content: 'held removal' });
    await api.channels.createMessage(dm.id, { content: 'plugin down' });
    expect(emulator.state.messages.map((m) => [m.recipientId, m.guildId, m.content])).toEqual([
      [OWNER, null, 'held removal'],
      [OWNER, null, 'plugin down'],
    ]);
  });

  it('lists a guild seeded without channels with one #general whose id is the guild’s, and posts to it', async () => {
    expect((await api.guilds.getChannels(GUILD)).map((c) => [c.id, c.name, c.type])).toEqual([[GUILD, 'general', 0]]);
    await api.channels.createMessage(GUILD, { content: 'to the channel' });
    expect(emulator.state.messages.map((m) => [m.channelId, m.guildId, m.recipientId])).toEqual([[GUILD, GUILD, null]]);
  });

  it('answers like the platform to bad input: unknown channel, missing or long content, unknown recipient', async () => {
    expect(await post('/channels/123456789012345678/messages', { content: 'x' })).toMatchObject({
      status: 404,
      body: { message: 'Unknown Channel', code: 10003 },
    });
    const empty = await post(`/channels/${GUILD}/messages`, {});
    expect(empty).toMatchObject({
      status: 400,
      body: {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { content: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } },
      },
    });
    expect((await post(`/channels/${GUILD}/messages`, { content: 'x'.repeat(2001) })).body).toMatchObject({
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });
    expect((await post('/users/@me/channels', { recipient_id: NEVER_AN_ACCOUNT })).status).toBe(400);
    expect((await post('/users/@me/channels', { recipient_id: 'someone' })).body).toMatchObject({
      code: 50035,
      errors: { recipient_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } },
    });
    expect((await call<RESTError>(emulator, 'GET', '/guilds/999999999999999999/channels')).body).toEqual({
      message: 'Unknown Guild',
      code: 10004,
    });
    expect(emulator.state.messages).toEqual([]);
  });

  it('refuses a DM to a user who shares no guild with the bot (50278) or turned DMs off (50007), as the platform does', async () => {
    // Create DM answers for any account; the post is what the platform refuses.
    const outside = (await api.users.createDM(NOT_A_MEMBER)).id;
    expect(await post(`/channels/${outside}/messages`, { content: 'x' })).toMatchObject({
      status: 403,
      body: { message: 'Cannot send messages to this user due to having no mutual guilds', code: 50278 },
    });

    const member = (await api.users.createDM(USERS[0])).id;
    expect((await control(emulator, 'PUT', `/users/${USERS[0]}/dms`, { open: false })).status).toBe(204);
    expect(await post(`/channels/${member}/messages`, { content: 'x' })).toMatchObject({
      status: 403,
      body: { message: 'Cannot send messages to this user', code: 50007 },
    });
    await control(emulator, 'PUT', `/users/${USERS[0]}/dms`, { open: true });
    expect((await post(`/channels/${member}/messages`, { content: 'y' })).status).toBe(200);

    // The bot leaves the only guild they shared: the owner's DMs refuse it too.
    const owner = (await api.users.createDM(OWNER)).id;
    emulator.state.setRules(GUILD, { botInGuild: false });
    expect((await post(`/channels/${owner}/messages`, { content: 'z' })).body).toMatchObject({ code: 50278 });
    expect(emulator.state.messages.map((m) => [m.recipientId, m.content])).toEqual([[USERS[0], 'y']]);
    expect((await control(emulator, 'PUT', '/users/488888888888888888/dms', { open: false })).status).toBe(404);
  });

  it('transfers a guild to a member: GET /guilds names the new owner; refuses a non-member', async () => {
    expect((await api.guilds.get(GUILD)).owner_id).toBe(OWNER);
    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/owner`, { userId: NOT_A_MEMBER })).status).toBe(409);
    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/owner`, { userId: USERS[1] })).status).toBe(204);
    expect((await api.guilds.get(GUILD)).owner_id).toBe(USERS[1]);
    // The previous owner stays in the guild (the seed had not listed them as a member).
    expect((await api.guilds.getMember(GUILD, OWNER)).roles).toEqual([]);
    expect((await control(emulator, 'PUT', `/guilds/${GUILD}/owner`, { userId: USERS[1] })).status).toBe(409);
  });

  it('limits messages per channel with the platform’s headers and 429 body', async () => {
    emulator.state.configure({ routeBucket: { limit: 2, windowMs: 60_000 } });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await post(`/channels/${GUILD}/messages`, { content: `m${i}` }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(answers[2]!.body).toMatchObject({ message: 'You are being rate limited.', global: false });
      expect(emulator.state.messages).toHaveLength(2);
    } finally {
      emulator.state.configure({ routeBucket: DEFAULT_CONFIG.routeBucket });
    }
  });
});
