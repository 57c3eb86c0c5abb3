import request from 'supertest';
import { buildApp, link, OTHER_TOKEN, register, TOKEN } from './test-support';

describe("the example plugin's root page (GET /)", () => {
  it('says what it is and lists its endpoints before any link registers', async () => {
    const res = await request(buildApp().app).get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(
      /^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).toContain('<h1>Demo member list</h1>');
    for (const route of ['POST /register', 'GET /config', 'POST /config', 'DELETE /config', 'GET /embed?rl_token=…'])
      expect(res.text).toContain(`<code>${route}</code>`);
    expect(res.text).toContain('<a href="health">GET /health</a>');
    expect(res.text).toContain('No link registered yet');
  });

  it('shows each registered link with its mode and count, never its token', async () => {
    const { app } = buildApp();
    await register(app);
    await register(app, OTHER_TOKEN, { guild_id: '1000', role_id: '3000' });
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${OTHER_TOKEN}`)
      .send({ guild_id: '1000', role_id: '3000', config: { member_count: 9, ui_mode: 'iframe' } })
      .expect(200);

    const page = await request(app).get('/').expect(200);
    expect(page.text).toContain('2 link(s) registered.');
    expect(page.text).toContain(
      `<tr><td><code>${link.guild_id}</code></td><td><code>${link.role_id}</code></td><td>form (schema)</td><td>5</td></tr>`,
    );
    expect(page.text).toContain(
      '<tr><td><code>1000</code></td><td><code>3000</code></td><td>embedded page (iframe)</td><td>9</td></tr>',
    );

    const json = await request(app).get('/').set('Accept', 'application/json').expect(200);
    expect(json.body).toMatchObject({
      name: 'Demo member list',
      endpoints: expect.arrayContaining([
        expect.objectContaining({ route: 'POST /register' }),
        expect.objectContaining({ route: 'GET /health' }),
      ]),
      links: [
        { guild_id: '1000', role_id: '2000', ui_mode: 'schema', member_count: 5 },
        { guild_id: '1000', role_id: '3000', ui_mode: 'iframe', member_count: 9 },
      ],
    });
    for (const body of [page.text, JSON.stringify(json.body)]) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain(OTHER_TOKEN);
      expect(body).not.toMatch(/rl_[A-Za-z0-9_]{20}/);
    }
  });

  it('still answers unknown paths with a JSON 404', async () => {
    const res = await request(buildApp().app).get('/nowhere').expect(404);
    expect(res.body).toEqual({ error: 'not found' });
  });
});
