import request from 'supertest';
import { createEmulatorApp } from '../app';
import { EmulatorState } from '../emulator-state';
import { DEFAULT_CONFIG, DEFAULT_OPTIONS } from '../options';
import { GUILD, OWNER, ROLE, smallSeed, TEST_USER_AGENT } from '../../test/support/fixtures';

function app(seeded = true) {
  const state = new EmulatorState({
    botToken: 'index-test-token',
    botUserId: DEFAULT_OPTIONS.botUserId,
    config: DEFAULT_CONFIG,
  });
  if (seeded) state.seed(smallSeed());
  return createEmulatorApp(state);
}

describe('the emulator index page (GET /)', () => {
  it('says what the emulator holds and where its APIs are, as a script-free page under a strict CSP', async () => {
    const res = await request(app()).get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(
      /^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).not.toMatch(/<script|\son\w+=/i);
    // The guild with its member count (five seeded members and the bot) and its roles with holder counts.
    expect(res.text).toContain('<h3>Test guild</h3>');
    expect(res.text).toContain(`Guild <code>${GUILD}</code>, owner <code>${OWNER}</code>, 6 members`);
    expect(res.text).toContain(
      `<td>linked</td><td><code>${ROLE.linked}</code></td><td>2</td><td><a href="/_emulator/guilds/${GUILD}/roles/${ROLE.linked}/holders">2</a></td>`,
    );
    expect(res.text).toContain(`<a href="/_emulator/guilds/${GUILD}/audit-log">audit log</a>`);
    expect(res.text).toContain('the bot&#39;s role');
    expect(res.text).toContain('above the bot');
    // The bot user, never its token.
    expect(res.text).toContain(`<code>${DEFAULT_OPTIONS.botUserId}</code>`);
    expect(res.text).not.toContain('index-test-token');
    // Sign-in, the platform API base, the control API (GET routes linked).
    expect(res.text).toContain(`/oauth2/authorize?response_type=code&#38;client_id=${DEFAULT_OPTIONS.oauth.clientId}`);
    expect(res.text).toContain('<code>/api/v10</code>');
    expect(res.text).toContain('<a href="/_emulator/stats">/_emulator/stats</a>');
    expect(res.text).toContain('<a href="/_emulator/config">/_emulator/config</a>');
    expect(res.text).toContain('<code>POST /_emulator/seed</code>');
  });

  it('escapes every seeded name', async () => {
    const state = new EmulatorState({ botToken: 't', botUserId: DEFAULT_OPTIONS.botUserId, config: DEFAULT_CONFIG });
    const seed = smallSeed();
    seed.guilds[0]!.name = '<script>alert(1)</script>';
    seed.guilds[0]!.roles[0]!.name = '"><img src=x onerror=alert(2)>';
    state.seed(seed);
    const res = await request(createEmulatorApp(state)).get('/').expect(200);
    expect(res.text).not.toContain('<script>');
    expect(res.text).not.toContain('<img');
    expect(res.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(res.text).toContain('&#34;&#62;&#60;img src=x onerror=alert(2)&#62;');
  });

  it('says how to seed when it holds no guild', async () => {
    const res = await request(app(false)).get('/').expect(200);
    expect(res.text).toContain('No guilds yet');
  });
});

describe('GET /api and /api/v10', () => {
  it('answer a short JSON pointer to the API base and the index page', async () => {
    for (const path of ['/api', '/api/', '/api/v10', '/api/v10/']) {
      const res = await request(app()).get(path).set('Host', '127.0.0.1:3900').expect(200);
      expect(res.body).toEqual({
        message: expect.stringContaining('/api/v10'),
        api_base: 'http://127.0.0.1:3900/api/v10',
        docs: 'http://127.0.0.1:3900/',
      });
    }
  });

  it("keep the platform's own answers for every other path and method under /api/v10", async () => {
    const unknown = await request(app())
      .get('/api/v10/channels/1')
      .set('Authorization', 'Bot index-test-token')
      .set('User-Agent', TEST_USER_AGENT)
      .expect(404);
    expect(unknown.body).toEqual({ message: '404: Not Found', code: 0 });
    const anonymous = await request(app()).get('/api/v10/channels/1').set('User-Agent', TEST_USER_AGENT).expect(401);
    expect(anonymous.body).toEqual({ message: '401: Unauthorized', code: 0 });
    // Without a client's User-Agent the edge refuses first: Cloudflare's page, none of the API's headers.
    const bare = await request(app()).get('/api/v10/channels/1').set('Authorization', 'Bot index-test-token');
    expect([bare.status, bare.type, bare.headers['x-ratelimit-bucket']]).toEqual([403, 'text/html', undefined]);
    expect(bare.text).toContain('DiscordBot ($url, $versionNumber)');
    const post = await request(app())
      .post('/api/v10')
      .set('Authorization', 'Bot index-test-token')
      .set('User-Agent', TEST_USER_AGENT)
      .expect(404);
    expect(post.body).toEqual({ message: '404: Not Found', code: 0 });
  });

  it('leaves other unknown paths to the service 404', async () => {
    const res = await request(app()).get('/nowhere').expect(404);
    expect(res.body).toMatchObject({ statusCode: 404 });
  });
});
