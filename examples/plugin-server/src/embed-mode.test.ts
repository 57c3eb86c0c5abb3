import { mintIframeToken } from '@rolelink/plugin-sdk';
import request from 'supertest';
import { buildApp, DASHBOARD_ORIGINS, link, OTHER_TOKEN, PUBLIC_URL, register, TOKEN } from './test-support';
import { bodyOf } from '../../../test/support/body';

const VIEWER = '123456789012345678';
const mint = ({
  apiToken = TOKEN,
  pluginUrl = PUBLIC_URL,
  guildId = link.guild_id,
  roleId = link.role_id,
  now = new Date(),
} = {}) => mintIframeToken({ apiToken, pluginUrl, viewerId: VIEWER, guildId, roleId, now });
const fiveMinutesAgo = () => new Date(Date.now() - 6 * 60_000);
const FRAME_ANCESTORS = `frame-ancestors ${DASHBOARD_ORIGINS.join(' ')}`;

async function inIframeMode() {
  const built = buildApp();
  await register(built.app);
  await request(built.app)
    .post('/config')
    .set('Authorization', `Token ${TOKEN}`)
    .send({ ...link, config: { member_count: 5, label: 'Demo', ui_mode: 'iframe' } })
    .expect(200);
  return built;
}

describe('the example plugin’s embedded page (iframe mode)', () => {
  it('serves the page for a valid rl_token, frameable by the dashboard origins only and without X-Frame-Options', async () => {
    const { app } = await inIframeMode();
    const res = await request(app).get('/embed').query({ theme: 'light', rl_token: mint() }).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain(FRAME_ANCESTORS);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.text).toContain(`data-dashboard-origins="${DASHBOARD_ORIGINS.join(' ')}"`);
    expect(res.text).toContain(
      `guild <code>${link.guild_id}</code>, role <code>${link.role_id}</code> · viewer <code>${VIEWER}</code>`,
    );
    expect(res.text).toContain('<script src="embed/app.js" defer></script>');
    // No inline script or style: the CSP forbids them.
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.text).not.toMatch(/\sstyle=|<style/);
  });

  it('refuses a missing, forged or expired rl_token with a 401 page that says so and is still frameable', async () => {
    const { app } = await inIframeMode();
    const cases = [
      { query: {}, says: /rl_token parameter is missing/ },
      { query: { rl_token: mint({ apiToken: OTHER_TOKEN }) }, says: /not valid/ },
      { query: { rl_token: 'not.a.jwt' }, says: /not valid/ },
      { query: { rl_token: mint({ now: fiveMinutesAgo() }) }, says: /has expired/ },
    ];
    for (const { query, says } of cases) {
      const res = await request(app).get('/embed').query(query).expect(401);
      expect(res.text).toMatch(says);
      expect(res.headers['content-security-policy']).toContain(FRAME_ANCESTORS);
      expect(res.headers['x-frame-options']).toBeUndefined();
    }
  });

  it('refuses a token signed for another link or minted for another plugin URL', async () => {
    const { app } = await inIframeMode();
    await register(app, OTHER_TOKEN, { guild_id: '1000', role_id: '3000' });
    // Signed with link 2000's API token, but claiming link 3000: verified with 3000's token, so refused.
    await request(app)
      .get('/embed')
      .query({ rl_token: mint({ roleId: '3000' }) })
      .expect(401);
    await request(app)
      .get('/embed')
      .query({ rl_token: mint({ pluginUrl: 'https://someone-else.example.com' }) })
      .expect(401);
    await request(app)
      .get('/embed')
      .query({ rl_token: mint({ apiToken: OTHER_TOKEN, roleId: '3000' }) })
      .expect(200);
  });

  it('escapes saved values in the page', async () => {
    const { app } = buildApp();
    await register(app);
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { member_count: 1, label: '"><script>x()</script>' } })
      .expect(200);
    const res = await request(app).get('/embed').query({ rl_token: mint() }).expect(200);
    expect(res.text).toContain('value="&#34;&#62;&#60;script&#62;x()&#60;/script&#62;"');
  });

  it('serves its script as JavaScript and its stylesheet as CSS', async () => {
    const { app } = buildApp();
    const js = await request(app).get('/embed/app.js').expect(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.text).toContain("type: 'rl:resize'");
    expect((await request(app).get('/embed/app.css').expect(200)).headers['content-type']).toMatch(/^text\/css/);
  });

  it('saves member_count and label from the page, pushes the list and reports them as the saved state', async () => {
    const { app, registrations, wanted } = await inIframeMode();
    const auth = `Bearer ${mint()}`;
    const res = await request(app)
      .post('/embed/config')
      .set('Authorization', auth)
      .send({ member_count: 8, label: 'Raiders' })
      .expect(200);
    expect(res.body).toEqual({
      ok: true,
      message: 'Saved: 8 members',
      saved: { member_count: 8, label: 'Raiders' },
      ui_mode: 'iframe',
    });
    expect(registrations.get('1000', '2000')?.config).toEqual({ member_count: 8, label: 'Raiders', ui_mode: 'iframe' });
    expect(wanted.at(-1)).toEqual({ guildId: '1000', count: 8 });
    const state = await request(app).get('/embed/state').set('Authorization', auth).expect(200);
    expect(state.body).toMatchObject({ saved: { member_count: 8, label: 'Raiders' }, ui_mode: 'iframe' });
  });

  it('switches the link back to the form, keeping its settings', async () => {
    const { app, wanted } = await inIframeMode();
    const pushes = wanted.length;
    const res = await request(app)
      .post('/embed/config')
      .set('Authorization', `Bearer ${mint()}`)
      .send({ ui_mode: 'schema' })
      .expect(200);
    expect(res.body).toMatchObject({
      ok: true,
      message: 'Switched back to the form — reload the configuration tab',
      ui_mode: 'schema',
    });
    expect(wanted).toHaveLength(pushes); // the list did not change, so nothing is pushed
    const form = await request(app).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200);
    expect(form.body).toMatchObject({
      ui_mode: 'schema',
      values: { member_count: 5, label: 'Demo', ui_mode: 'schema' },
    });
  });

  it('refuses page calls without a valid Bearer rl_token, and bodies it cannot save, with a JSON error', async () => {
    const { app, registrations } = await inIframeMode();
    await request(app).post('/embed/config').send({ member_count: 1 }).expect(401);
    const expired = await request(app)
      .post('/embed/config')
      .set('Authorization', `Bearer ${mint({ now: fiveMinutesAgo() })}`)
      .send({ member_count: 1 })
      .expect(401);
    expect(bodyOf<{ error: string }>(expired).error).toMatch(/expired/);
    await request(app).get('/embed/state').set('Authorization', `Token ${TOKEN}`).expect(401);
    const auth = `Bearer ${mint()}`;
    expect(
      bodyOf<{ error: string }>(
        await request(app).post('/embed/config').set('Authorization', auth).send({ member_count: 10_001 }).expect(400),
      ).error,
    ).toMatch(/member_count/);
    await request(app).post('/embed/config').set('Authorization', auth).send({}).expect(400);
    await request(app)
      .post('/embed/config')
      .set('Authorization', auth)
      .send({ member_count: 1, sync_end_hour: 3 })
      .expect(400);
    expect(registrations.get('1000', '2000')?.config).toEqual({ member_count: 5, label: 'Demo', ui_mode: 'iframe' });
  });
});
