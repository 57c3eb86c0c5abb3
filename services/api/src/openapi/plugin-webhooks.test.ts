import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import { PLUGIN_EVENT_KINDS } from '@rolelink/contracts';
import {
  configForm,
  fields,
  iframeResponse,
  MemoryTokenStore,
  pluginMiddleware,
  section,
  signEvent,
} from '@rolelink/plugin-sdk';
import { testPingEvent } from '../../../cli/src/plugin-check/check-events';
import { sampleEvent } from '../../../cli/src/trigger/run-trigger';
import { openApiDocument } from './document';

/**
 * The document's `webhooks` (what the service calls on a plugin) held to both sides that speak them: the
 * SDK's plugin middleware answers what the webhooks say it may (register answer, form, health report) and
 * accepts every event they describe, and the events `rolelink plugin check` and `rolelink trigger` send
 * are events the webhooks describe. The request bodies' wire types, which the SDK ships and the checker
 * types its requests with, are held to the same zod schemas by packages/contracts/src/wire-types.check.ts.
 */

type Doc = {
  openapi: string;
  webhooks: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, object> };
};
const doc = openApiDocument() as unknown as Doc;
// Formats are not checked (as in openapi.int.test.ts); zod writes a pattern beside each date-time format.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
const check = (name: string, value: unknown) => {
  const validate = ajv.getSchema(`doc#/components/schemas/${name}`)!;
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

const link = { guild_id: '1100000000000000001', role_id: '1100000000000000011' };
const token = 'rl_webhooks_test_token_0123456789abcdef';
const form = configForm({ name: 'Hooks', sections: [section('S', [fields.text('name', 'Name')])] });
const received: string[] = [];
const plugin = pluginMiddleware({
  store: new MemoryTokenStore(),
  getConfig: () => form.response({ name: 'x' }),
  events: Object.fromEntries(PLUGIN_EVENT_KINDS.map((k) => [k, () => void received.push(k)])),
});

describe("the OpenAPI document's webhooks: what the service calls on a plugin", () => {
  it('describes /register, /config (get, post, delete), /health and /events', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.fromEntries(Object.entries(doc.webhooks).map(([k, v]) => [k, Object.keys(v)]))).toEqual({
      '/register': ['post'],
      '/config': ['get', 'post', 'delete'],
      '/health': ['get'],
      '/events': ['post'],
    });
    // Every schema a webhook names is in components.
    const refs = JSON.stringify(doc.webhooks).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const r of new Set(refs)) expect(doc.components.schemas).toHaveProperty(r.split('/').pop()!);
  });

  it("the SDK's answers to /register, /config and /health are what the webhooks allow", async () => {
    const body = { ...link, member_mode: 'handover', current_holders: 3 };
    expect(check('PluginRegisterBody', body)).toEqual([]);
    const auth = { Authorization: `Token ${token}` };
    const registered = await request(plugin).post('/register').set(auth).send(body).expect(200);
    expect(check('PluginRegisterAnswer', registered.body)).toEqual([]);
    expect((registered.body as { events: string[] }).events.slice().sort()).toEqual([...PLUGIN_EVENT_KINDS].sort());

    const config = await request(plugin).get('/config').set(auth).expect(200);
    expect(check('PluginConfigForm', config.body)).toEqual([]);
    expect(check('PluginIframeConfig', iframeResponse({ name: 'Page', embedUrl: 'https://p.example/embed' }))).toEqual(
      [],
    );
    const health = await request(plugin).get('/health');
    expect(check('PluginHealthReport', health.body)).toEqual([]);
  });

  it('every event the trigger and the conformance check send is a PluginEvent, and the SDK accepts each', async () => {
    const events = [...PLUGIN_EVENT_KINDS.map((k) => sampleEvent(k, link)), testPingEvent(link)];
    for (const e of events) expect([e.type, check('PluginEvent', e)]).toEqual([e.type, []]);
    for (const e of events.slice(0, -1)) {
      const raw = JSON.stringify(e);
      await request(plugin)
        .post('/events')
        .set({ Authorization: `Token ${token}`, 'content-type': 'application/json', ...signEvent(token, e.id, raw) })
        .send(raw)
        .expect((res) => expect(res.status).toBeLessThan(300));
    }
    expect(received).toEqual([...PLUGIN_EVENT_KINDS]);
  });

  it('refuses what is not an event: an unknown type, a missing field, data of another kind', () => {
    const e = sampleEvent('member.not_in_guild', link);
    expect(check('PluginEvent', { ...e, type: 'member.left' })).not.toEqual([]);
    expect(check('PluginEvent', { ...e, seq: undefined })).not.toEqual([]);
    expect(check('PluginEvent', { ...e, data: { user_id: '123456789012345678', reason: 'kicked' } })).not.toEqual([]);
    expect(check('PluginEvent', { ...sampleEvent('link.deleted', link), data: { extra: 1 } })).not.toEqual([]);
  });
});
