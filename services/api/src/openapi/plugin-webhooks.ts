import {
  configSchemaResponse,
  iframeResponseSchema,
  pluginConfigSubmitBody,
  pluginEvent,
  pluginHealthReport,
  pluginLinkBody,
  pluginRegisterAnswer,
  pluginRegisterBody,
} from '@rolelink/contracts';
import type { ZodType } from 'zod';

/**
 * What the service calls on a plugin (spec 4.2, docs/api.md "Events to plugins"), as the OpenAPI 3.1
 * document's `webhooks`: a plugin author reads the requests to expect and the answers to give, generated
 * from the same zod schemas as the rest of the document (the bodies' wire types are checked against them
 * in packages/contracts/src/wire-types.check.ts). Keys are the paths under the plugin's URL.
 */

/** The schemas the webhooks name, shared through components. */
export const WEBHOOK_COMPONENTS = {
  PluginLinkBody: pluginLinkBody,
  PluginRegisterBody: pluginRegisterBody,
  PluginRegisterAnswer: pluginRegisterAnswer,
  PluginConfigForm: configSchemaResponse,
  PluginIframeConfig: iframeResponseSchema(),
  PluginConfigSubmitBody: pluginConfigSubmitBody,
  PluginHealthReport: pluginHealthReport,
  PluginEvent: pluginEvent,
} as const satisfies Record<string, ZodType>;
type Name = keyof typeof WEBHOOK_COMPONENTS;

const ref = (name: Name) => ({ $ref: `#/components/schemas/${name}` });
const body = (name: Name) => ({ required: true, content: { 'application/json': { schema: ref(name) } } });
const TAG = 'Plugin calls (the service calls your plugin)';
const auth = [{ Token: [] }];
const anyTwoXX = (description: string) => ({ '2XX': { description } });

const signatureHeaders = [
  ['webhook-id', "The event's id, equal to the body's `id`, stable across retries: deduplicate on it"],
  ['webhook-timestamp', 'Unix seconds of this attempt; refuse one more than 5 minutes off'],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with HMAC-SHA256(key = the link token, "rolelink-events-v1") (the SDK\'s `eventSecret(token)`); verify over the raw body',
  ],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

export const PLUGIN_WEBHOOKS = {
  '/register': {
    post: {
      operationId: 'pluginRegister',
      summary: 'A link to your plugin was created: store its token (the Authorization header)',
      tags: [TAG],
      security: auth,
      requestBody: body('PluginRegisterBody'),
      responses: {
        '2XX': {
          description:
            'Any 2xx confirms; a JSON body may list `events`, the kinds to send this link (at most 50; unknown names are ignored)',
          content: { 'application/json': { schema: ref('PluginRegisterAnswer') } },
        },
        default: { description: 'Anything else fails the link creation (502 `Failed to register with plugin server`)' },
      },
    },
  },
  '/config': {
    get: {
      operationId: 'pluginGetConfig',
      summary: "The link's configuration form and values (schema mode), or the page to embed (iframe mode)",
      tags: [TAG],
      security: auth,
      responses: {
        200: {
          description:
            'The form (`ui_mode` absent or `schema`) or the embedded page (`ui_mode: iframe`), at most 50 KB',
          content: {
            'application/json': { schema: { anyOf: [ref('PluginConfigForm'), ref('PluginIframeConfig')] } },
          },
        },
      },
    },
    post: {
      operationId: 'pluginSaveConfig',
      summary: "An admin saved the form: the values, already checked against the form's rules",
      tags: [TAG],
      security: auth,
      requestBody: body('PluginConfigSubmitBody'),
      responses: {
        ...anyTwoXX('Saved; a JSON body is shown to the admin'),
        '4XX': { description: 'Refused: `{ "error": "<text>" }` (or `message`) is shown to the admin' },
      },
    },
    delete: {
      operationId: 'pluginDeleteConfig',
      summary: 'The link was deleted: forget it (sent after its `link.deleted` event; may repeat)',
      tags: [TAG],
      security: auth,
      requestBody: body('PluginLinkBody'),
      responses: anyTwoXX('Forgotten'),
    },
  },
  '/health': {
    get: {
      operationId: 'pluginHealth',
      summary: 'The health poll (every minute; no Authorization); `events` here sets the kinds of every link',
      tags: [TAG],
      responses: {
        200: { description: 'A health report', content: { 'application/json': { schema: ref('PluginHealthReport') } } },
        503: {
          description: 'An unhealthy report',
          content: { 'application/json': { schema: ref('PluginHealthReport') } },
        },
      },
    },
  },
  '/events': {
    post: {
      operationId: 'pluginEvent',
      summary: 'One signed event of a kind the plugin asked for (Standard Webhooks headers)',
      tags: [TAG],
      security: auth,
      parameters: signatureHeaders,
      requestBody: body('PluginEvent'),
      responses: {
        ...anyTwoXX('Received'),
        default: {
          description: 'Anything else (or no answer within 5 s) is retried with backoff for 24 h, then dropped',
        },
      },
    },
  },
} as const;
