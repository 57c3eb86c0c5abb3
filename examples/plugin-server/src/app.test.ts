import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import request from 'supertest';
import { demoMemberIds } from './push';
import { signEvent } from '@rolelink/plugin-sdk';
import { buildApp as build, link, OTHER_TOKEN, PUBLIC_URL, register, TOKEN } from './test-support';
import { writeSelfSignedCert } from './tls';
import { bodyOf } from '../../../test/support/body';

describe('example plugin server', () => {
  it('stores the token at /register and asks for the demo list to be pushed', async () => {
    const { app, registrations, wanted } = build();
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link).expect(200);
    expect(registrations.get('1000', '2000')?.token).toBe(TOKEN);
    expect(wanted).toEqual([{ guildId: '1000', count: 5 }]);
  });

  it('asks for list.resend_requested and answers a signed one by pushing its list again, with the saved count', async () => {
    const { app, wanted } = build();
    const registered = await request(app)
      .post('/register')
      .set('Authorization', `Token ${TOKEN}`)
      .send(link)
      .expect(200);
    expect(bodyOf<{ events: string[] }>(registered).events).toContain('list.resend_requested');
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { member_count: 7 } })
      .expect(200);
    const event = {
      id: 'evt_9',
      type: 'list.resend_requested',
      timestamp: new Date().toISOString(),
      ...link,
      seq: 1,
      data: { change_id: '00000000-0000-4000-8000-000000000000', window_ends_at: new Date().toISOString() },
    };
    const body = JSON.stringify(event);
    // A forged event (another token's signature) pushes nothing.
    await request(app)
      .post('/events')
      .set(signEvent(OTHER_TOKEN, event.id, body))
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(401);
    expect(wanted).toEqual([
      { guildId: '1000', count: 5 },
      { guildId: '1000', count: 7 },
    ]);
    await request(app)
      .post('/events')
      .set(signEvent(TOKEN, event.id, body))
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(204);
    expect(wanted.at(-1)).toEqual({ guildId: '1000', count: 7 });
    expect(wanted).toHaveLength(3);
  });

  it('refuses /register without a token', async () => {
    await request(build().app).post('/register').send(link).expect(401);
  });

  it('serves a version 1 schema form to the registered token only', async () => {
    const { app } = build();
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link);
    const res = await request(app).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200);
    expect(res.body).toMatchObject({ version: 1, ui_mode: 'schema', values: { member_count: 5 } });
    await request(app)
      .get('/config')
      .set('Authorization', `Token rl_${'b'.repeat(43)}`)
      .expect(401);
  });

  it('saves a valid form and pushes the new count, and rejects an invalid one with an error text', async () => {
    const { app, wanted } = build();
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link);
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { member_count: 7 } })
      .expect(200);
    expect(wanted.at(-1)).toEqual({ guildId: '1000', count: 7 });
    const bad = await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { member_count: -1 } })
      .expect(400);
    expect(bodyOf<{ error: string }>(bad).error).toMatch(/member_count/);
  });

  it('refuses a sync window that does not end after it starts with a 400 whose error the dashboard can show', async () => {
    const { app, registrations, wanted } = build();
    await register(app);
    const config = { member_count: 7, sync_start_hour: 18, sync_end_hour: 9 };
    const res = await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config })
      .expect(400);
    expect(res.body).toEqual({ error: 'The sync window must end after it starts (start 18, end 9)' });
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { ...config, sync_end_hour: 18 } })
      .expect(400);
    expect(registrations.get('1000', '2000')?.config).toEqual({ member_count: 5 });
    expect(wanted).toHaveLength(1); // the push of /register only
  });

  it('saves every setting of the form and sends them back as values, dropping keys the form does not have', async () => {
    const { app } = build();
    await register(app);
    const config = {
      member_count: 12,
      label: 'Raid team',
      source: 'teams',
      teams: ['red', 'blue'],
      sync_start_hour: 8,
      sync_end_hour: 20,
      notify: true,
      webhook_url: 'https://hooks.example.com/x',
      embed_color: '#112233',
      stray: 1,
    };
    const saved = await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config })
      .expect(200);
    expect(saved.body).toEqual({ ok: true, message: 'Saved: 12 members' });
    const { stray: _stray, ...kept } = config;
    expect(
      bodyOf<{ values: Record<string, unknown> }>(
        await request(app).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200),
      ).values,
    ).toEqual(kept);
  });

  it('answers GET /config with the iframe response once ui_mode iframe is saved', async () => {
    const { app } = build();
    await register(app);
    await request(app)
      .post('/config')
      .set('Authorization', `Token ${TOKEN}`)
      .send({ ...link, config: { member_count: 5, ui_mode: 'iframe' } })
      .expect(200);
    const res = await request(app).get('/config').set('Authorization', `Token ${TOKEN}`).expect(200);
    expect(res.body).toEqual({
      version: 1,
      ui_mode: 'iframe',
      name: 'Demo member list',
      description: expect.any(String),
      embed_url: `${PUBLIC_URL}/embed?theme=light`,
    });
  });

  it('answers a malformed JSON body with a JSON 400', async () => {
    const res = await request(build().app)
      .post('/config')
      .set('Content-Type', 'application/json')
      .send('{"guild_id":')
      .expect(400);
    expect(bodyOf<{ error: string }>(res).error).toEqual(expect.any(String));
  });

  it('forgets the link on DELETE /config and answers health without a token', async () => {
    const { app, registrations } = build();
    await request(app).post('/register').set('Authorization', `Token ${TOKEN}`).send(link);
    await request(app).delete('/config').set('Authorization', `Token ${TOKEN}`).send(link).expect(200);
    expect(registrations.get('1000', '2000')).toBeUndefined();
    expect(bodyOf<{ status: string }>(await request(app).get('/health').expect(200)).status).toBe('healthy');
  });

  it('makes consecutive demo member ids from the first one', () => {
    expect(demoMemberIds('100000000000000000', 3)).toEqual([
      '100000000000000000',
      '100000000000000001',
      '100000000000000002',
    ]);
  });

  it('writes a self-signed certificate that a client trusting it accepts for 127.0.0.1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plugin-tls-'));
    try {
      const tls = await writeSelfSignedCert(path.join(dir, 'cert.pem'), path.join(dir, 'key.pem'));
      const server = https.createServer({ cert: tls.cert, key: tls.key }, (_req, res) => res.end('ok'));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/', ca: tls.cert }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c)).on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      server.close();
      expect(body).toBe('ok');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
