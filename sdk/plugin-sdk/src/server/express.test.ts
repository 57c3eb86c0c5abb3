import http from 'node:http';
import express from 'express';
import request from 'supertest';
import { configForm, fields, iframeResponse, section } from './config-schema';
import { pluginMiddleware } from './express';
import { embedPageHeaders, frameAncestors } from './frame-ancestors';
import { PluginError, type PluginHooks } from './plugin-handlers';
import { MemoryTokenStore } from './token-store';
import { bodyOf } from '../../../../test/support/body';

const TOKEN = 'rl_' + 'a'.repeat(43);
const OTHER = 'rl_' + 'b'.repeat(43);
const link = { guild_id: '1000', role_id: '2000' };
const form = configForm({
  name: 'Demo',
  sections: [section('S', [fields.number('count', 'Count', { validation: { required: true } })])],
});

function setup(extra: Partial<PluginHooks> = {}) {
  const store = new MemoryTokenStore();
  const events: string[] = [];
  const saved: Record<string, unknown>[] = [];
  const hooks: PluginHooks = {
    store,
    getConfig: () => form.response({ count: Number(saved.at(-1)?.count ?? 1) }),
    saveConfig: (_l, config) => {
      if (typeof config.count !== 'number' || config.count < 0)
        throw new PluginError(400, 'count must be a positive number');
      saved.push(config);
      return { ok: true, message: `Saved ${config.count}` };
    },
    onRegister: (l, previous) => void events.push(`register ${l.guildId} ${previous ? 'again' : 'first'}`),
    onDelete: (l) => void events.push(`delete ${l.guildId}`),
    ...extra,
  };
  const app = express();
  app.use(express.json());
  app.use(pluginMiddleware(hooks));
  app.get('/own-route', (_req, res) => void res.send('mine'));
  return { app, store, events, saved };
}

const register = (app: express.Express, token = TOKEN) =>
  request(app).post('/register').set('Authorization', `Token ${token}`).send(link);

describe('plugin server helpers (spec 4.2) through the Express adapter', () => {
  it('stores the token on /register and answers GET /config for that token only', async () => {
    const { app, store, events } = setup();
    await register(app).expect(200, { ok: true });
    expect(store.get('1000', '2000')).toEqual({ guildId: '1000', roleId: '2000', token: TOKEN });
    const config = await request(app).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200);
    expect(config.body).toMatchObject({ version: 1, ui_mode: 'schema', name: 'Demo', values: { count: 1 } });
    await request(app).get('/config').set('Authorization', `Token ${OTHER}`).expect(401);
    await request(app).get('/config').expect(401);
    await register(app, OTHER).expect(200);
    expect(events).toEqual(['register 1000 first', 'register 1000 again']);
  });

  it("hands onRegister the role's current holders the service sent, and nothing from an older service", async () => {
    const seen: unknown[] = [];
    const { app } = setup({ onRegister: (_l, _previous, registration) => void seen.push(registration) });
    await request(app)
      .post('/register')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, member_mode: 'handover', current_holders: 20 })
      .expect(200);
    await register(app).expect(200);
    await request(app)
      .post('/register')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, member_mode: 'other', current_holders: '20' })
      .expect(200);
    expect(seen).toEqual([{ memberMode: 'handover', currentHolders: 20 }, undefined, undefined]);
  });

  it('refuses /register without a Token header or without guild_id and role_id', async () => {
    const { app, store } = setup();
    await request(app).post('/register').set('Authorization', `Bearer ${TOKEN}`).send(link).expect(401);
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send({ guild_id: 'x' }).expect(400);
    expect(store.all()).toEqual([]);
  });

  it("saves POST /config only with the link's own token, and forwards a PluginError as 4xx { error }", async () => {
    const { app, saved } = setup();
    await register(app);
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${OTHER}`)
      .send({ ...link, config: { count: 3 } })
      .expect(401);
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { count: 3 } })
      .expect(200, { ok: true, message: 'Saved 3' });
    const refused = await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { count: -1 } })
      .expect(400);
    expect(refused.body).toEqual({ error: 'count must be a positive number' });
    expect(saved).toEqual([{ count: 3 }]);
  });

  it('forgets the link on DELETE /config with its token, not with another', async () => {
    const { app, store, events } = setup();
    await register(app);
    await request(app).delete('/config').set('Authorization', `Token ${OTHER}`).send(link).expect(401);
    expect(store.get('1000', '2000')).toBeDefined();
    await request(app).delete('/config').set('Authorization', `Token ${TOKEN}`).send(link).expect(200);
    expect(store.get('1000', '2000')).toBeUndefined();
    expect(events.at(-1)).toBe('delete 1000');
  });

  it('answers /health without authorization, from the hook when given', async () => {
    expect(bodyOf<{ status: string }>(await request(setup().app).get('/health').expect(200)).status).toBe('healthy');
    const degraded = setup({
      health: () => ({ status: 'degraded', checks: { db: { status: 'down', message: 'timeout' } } }),
    });
    expect((await request(degraded.app).get('/health').expect(200)).body).toEqual({
      status: 'degraded',
      checks: { db: { status: 'down', message: 'timeout' } },
    });
  });

  it('leaves other routes to the application', async () => {
    await request(setup().app).get('/own-route').expect(200, 'mine');
  });

  it('reads the JSON body itself on plain node:http (no body parser before it)', async () => {
    const store = new MemoryTokenStore();
    const server = http.createServer(
      pluginMiddleware({
        store,
        getConfig: () => iframeResponse({ name: 'Page', embedUrl: 'https://p.example.com/embed' }),
      }),
    );
    await request(server).post('/register').set('Authorization', `Token ${TOKEN}`).send(link).expect(200);
    expect(
      bodyOf<{ ui_mode: string }>(
        await request(server).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200),
      ).ui_mode,
    ).toBe('iframe');
    await request(server)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: {} })
      .expect(400);
    await request(server)
      .post('/register')
      .set('Authorization', `Token ${TOKEN}`)
      .set('Content-Type', 'application/json')
      .send('{"guild_id":')
      .expect(400);
    await request(server).get('/elsewhere').expect(404);
  });
});

describe('frame-ancestors helper (spec 4.3)', () => {
  it('names the dashboard origins, sends no X-Frame-Options, and refuses what is not an origin', () => {
    const headers = embedPageHeaders(['https://dash.example.com', 'http://127.0.0.1:3001'], ["default-src 'none'"]);
    expect(headers['Content-Security-Policy']).toBe(
      "default-src 'none'; frame-ancestors https://dash.example.com http://127.0.0.1:3001",
    );
    expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('x-frame-options');
    expect(() => frameAncestors(['https://dash.example.com/path'])).toThrow(/not an origin/);
    expect(() => frameAncestors([])).toThrow();
  });
});
