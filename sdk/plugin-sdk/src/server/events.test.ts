import express from 'express';
import request from 'supertest';
import type { PluginEvent } from '@rolelink/wire-types';
import { signEvent } from '../event-signature';
import { pluginMiddleware } from './express';
import { MemoryTokenStore } from './token-store';

const TOKEN = 'rl_' + 'a'.repeat(43);
const link = { guild_id: '1000', role_id: '2000' };

function setup(parseJson: boolean) {
  const store = new MemoryTokenStore();
  const seen: string[] = [];
  const middleware = pluginMiddleware({
    store,
    getConfig: () => ({ version: 1, ui_mode: 'iframe', embed_url: 'https://plugin.example.com/embed' }) as never,
  });
  middleware.on('member.not_in_guild', (e, l) => void seen.push(`${e.data.user_id} in ${l.guildId}`));
  const app = express();
  if (parseJson) app.use(express.json());
  app.use(middleware);
  return { app, store, seen };
}

const event = (over: Partial<PluginEvent> = {}): PluginEvent =>
  ({
    id: 'evt_1',
    type: 'member.not_in_guild',
    timestamp: new Date().toISOString(),
    ...link,
    seq: 1,
    data: { user_id: '42' },
    ...over,
  }) as PluginEvent;

function post(app: express.Express, e: PluginEvent, token = TOKEN, tamper = (b: string) => b) {
  const body = JSON.stringify(e);
  return request(app)
    .post('/events')
    .set(signEvent(token, e.id, body))
    .set('content-type', 'application/json')
    .send(tamper(body));
}

describe('typed event handlers of the plugin server helpers (docs/plugin-quickstart.md)', () => {
  it.each([false, true])(
    'asks for the handled kinds on /register and /health, and runs the handler of a verified event (JSON parser before it: %s)',
    async (parseJson) => {
      const { app, seen } = setup(parseJson);
      await request(app)
        .post('/register')
        .set('Authorization', `Token ${TOKEN}`)
        .send(link)
        .expect(200, { ok: true, events: ['member.not_in_guild'] });
      expect((await request(app).get('/health').expect(200)).body).toMatchObject({
        status: 'healthy',
        events: ['member.not_in_guild'],
      });
      await post(app, event()).expect(204);
      expect(seen).toEqual(['42 in 1000']);
      // Kinds without a handler are acknowledged, not retried forever.
      await post(app, event({ id: 'evt_2', type: 'link.deleted', data: {} })).expect(204);
    },
  );

  it('refuses an event signed with another token, a tampered body, or for a link not registered here (401)', async () => {
    const { app, seen } = setup(false);
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link).expect(200);
    await post(app, event(), 'rl_' + 'b'.repeat(43)).expect(401);
    await post(app, event(), TOKEN, (b) => b.replace('"42"', '"43"')).expect(401);
    await post(app, event({ guild_id: '9999' })).expect(401);
    expect(seen).toEqual([]);
  });

  it('answers /register exactly as before when no event handler is registered', async () => {
    const app = express();
    app.use(pluginMiddleware({ store: new MemoryTokenStore(), getConfig: () => ({}) as never }));
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link).expect(200, { ok: true });
    expect((await request(app).get('/health').expect(200)).body).not.toHaveProperty('events');
  });
});
