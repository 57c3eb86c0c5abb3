import {
  chunkAcceptedBody,
  dryRunBody,
  CONFIRM_HEADER,
  dryRunQuery,
  usersQuery,
  errorBody,
  idListBody,
  userExpiryBody,
  linkParams,
  listMetaSchema,
  shrinkBodySchema,
  uploadCancelledBody,
  uploadCreatedBody,
  uploadParams,
  userAddedBody,
  userCountBody,
  userExistsBody,
  userParams,
  userRemovedBody,
  usersListBody,
} from '@rolelink/contracts';
import { z, type ZodObject, type ZodType } from 'zod';
import { PLUGIN_WEBHOOKS, WEBHOOK_COMPONENTS } from './plugin-webhooks';

/**
 * The OpenAPI 3.1 document of the User Management API, generated from the zod schemas of
 * @rolelink/contracts (the same ones the routes validate with): nothing here restates a body shape.
 * zod's own z.toJSONSchema writes JSON Schema draft 2020-12, which is OpenAPI 3.1's schema dialect,
 * so no converter library is needed; this file only lays out paths, parameters and answers. Bodies
 * are written as zod's input side, so objects stay open (additionalProperties unset): a field added
 * later does not break a client validating against this document.
 */

const toSchema = (schema: ZodType) => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  });
  return rest;
};

/** Named schemas, shared through components. */
/** The User Management API's part of the one error body: it never answers `errors` or `detail` (docs/api.md, "Errors"). */
const publicErrorBody = errorBody.pick({ statusCode: true, message: true, details: true });

const COMPONENTS = {
  ErrorBody: publicErrorBody,
  ShrinkHold: shrinkBodySchema,
  ListMeta: listMetaSchema,
  IdList: idListBody,
  DryRun: dryRunBody,
} as const;
type ComponentName = keyof typeof COMPONENTS;
type Body = ZodType | ComponentName;

const schemaOf = (body: Body) => (typeof body === 'string' ? { $ref: `#/components/schemas/${body}` } : toSchema(body));

/** Response headers, named in components.headers and referenced by the answers that carry them. */
const HEADERS = {
  ETag: {
    description: 'The list\'s version, `"<link id>.<version>"`; send it back in If-Match',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored first answer to the same Idempotency-Key; nothing was written again',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
  RateLimit: {
    description:
      'IETF draft 8: `"<plan>"; r=<remaining>; t=<seconds to reset>` (present only where the API runs with rate limits)',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft 8: `"<plan>"; q=<limit>; w=<window seconds>; pk=:<hash of the link>:`',
    schema: { type: 'string' },
  },
} as const;
type HeaderName = keyof typeof HEADERS;

type Answer = { description: string; body: Body; alternative?: Body; headers?: HeaderName[] };
const json = (body: Body, description: string): Answer => ({ description, body });
const error = (description: string) => json('ErrorBody', description);

/** Answers every route can give: authentication and link state (docs/api.md, order of checks). */
const COMMON = {
  400: error('Validation error (path parameters, IDs or body)'),
  401: error('Authorization header required, or a scheme other than Token'),
  403: error('Invalid or revoked token; link disabled; link paused (integration slots quota exceeded)'),
  404: error('Role link not found (or, for upload routes, Upload session not found)'),
} satisfies Record<number, Answer>;

// A recorded answer replayed for its Idempotency-Key carries Idempotent-Replayed, whatever its status.
const preconditionFailed: Answer = {
  ...error('If-Match names a version the list no longer has (the answer carries the current ETag)'),
  headers: ['ETag', 'Idempotent-Replayed'],
};
const rateLimited: Answer = {
  ...error('Too many requests for this token in the window (per plan); nothing was written'),
  headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy'],
};
/** A 200 that carries the list version, and when the route takes Idempotency-Key, whether it was replayed. */
const ok = (body: Body, description: string, headers: HeaderName[] = ['ETag']): Answer => ({
  ...json(body, description),
  headers,
});
const written = (body: Body, description: string): Answer => ok(body, description, ['ETag', 'Idempotent-Replayed']);
const keyReused = error('This Idempotency-Key was already used for a different request');
const held: Answer = {
  ...json(
    'ShrinkHold',
    'Held: the write removes at least 25% and 10 users (or empties the list); nothing was written. Or, in the error shape: a request with this Idempotency-Key is still running (retry later)',
  ),
  alternative: 'ErrorBody',
  headers: ['Idempotent-Replayed'],
};
const stillRunning = error('A request with this Idempotency-Key is still running; retry after it has answered');
const overLimit = error('Validation error, or Maximum N users per role link (stored limit)');
const premiumOnly = error('As above, or chunked uploads are on the premium plan only');

type Route = {
  method: 'get' | 'put' | 'post' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  params: ZodObject;
  confirmable?: boolean;
  /** Takes Idempotency-Key (PUT, commit, single add and remove). */
  idempotent?: boolean;
  /** Takes `?dry_run=true`: its 200 is then the DryRun body. */
  dryRun?: boolean;
  body?: Body;
  /** The body may be left out (POST /users/:userId: without one, a permanent member). */
  optionalBody?: boolean;
  /** Takes `?include=expiry` (GET /users). */
  include?: boolean;
  responses: Record<number, Answer>;
};

const base = '/api/role-link/{guildId}/{roleId}/users';
export const ROUTES: Route[] = [
  {
    method: 'get',
    path: base,
    operationId: 'listUsers',
    summary: 'The list (ascending IDs) and its counters',
    params: linkParams,
    include: true,
    responses: { 200: ok(usersListBody, 'meta first, then every user ID'), ...COMMON },
  },
  {
    method: 'put',
    path: base,
    operationId: 'replaceUsers',
    summary: 'Replace the whole list (at most 100,000 IDs; 10,000 on free)',
    params: linkParams,
    confirmable: true,
    idempotent: true,
    dryRun: true,
    body: 'IdList',
    responses: {
      200: {
        ...written(userCountBody, 'Replaced (or, with dry_run=true, what would happen: the DryRun body)'),
        alternative: 'DryRun',
      },
      ...COMMON,
      400: overLimit,
      409: held,
      412: preconditionFailed,
      422: keyReused,
      413: error("Too many users in one request (above the plan's per-PUT cap) or body over 4 MB"),
      415: error('Content-Type must be application/json'),
    },
  },
  {
    method: 'post',
    path: `${base}/upload`,
    operationId: 'createUpload',
    summary: 'Open a chunked upload session (premium)',
    params: linkParams,
    responses: { 200: json(uploadCreatedBody, 'Opened; expires 24 hours after creation'), ...COMMON, 403: premiumOnly },
  },
  {
    method: 'post',
    path: `${base}/upload/{uploadId}/chunk`,
    operationId: 'addChunk',
    summary: 'Stage up to 100,000 IDs (chunks may be sent in parallel)',
    params: uploadParams,
    body: 'IdList',
    responses: {
      200: json(chunkAcceptedBody, 'Staged'),
      ...COMMON,
      403: premiumOnly,
      415: error('Content-Type must be application/json'),
    },
  },
  {
    method: 'post',
    path: `${base}/upload/{uploadId}/commit`,
    operationId: 'commitUpload',
    summary: 'Replace the list with the staged IDs',
    params: uploadParams,
    confirmable: true,
    idempotent: true,
    dryRun: true,
    responses: {
      200: {
        ...written(
          userCountBody,
          'Replaced; the session is closed (or, with dry_run=true, what would happen: the DryRun body; the session stays open)',
        ),
        alternative: 'DryRun',
      },
      ...COMMON,
      400: overLimit,
      403: premiumOnly,
      409: held,
      412: preconditionFailed,
      422: keyReused,
    },
  },
  {
    method: 'delete',
    path: `${base}/upload/{uploadId}`,
    operationId: 'cancelUpload',
    summary: 'Discard the staged IDs',
    params: uploadParams,
    responses: { 200: json(uploadCancelledBody, 'Cancelled; the live list is untouched'), ...COMMON, 403: premiumOnly },
  },
  {
    method: 'get',
    path: `${base}/{userId}`,
    operationId: 'hasUser',
    summary: 'Whether a user is on the list',
    params: userParams,
    responses: { 200: ok(userExistsBody, 'Answered'), ...COMMON },
  },
  {
    method: 'post',
    path: `${base}/{userId}`,
    operationId: 'addUser',
    summary: 'Add one user (idempotent), permanent or until an expiry',
    params: userParams,
    idempotent: true,
    body: userExpiryBody,
    optionalBody: true,
    responses: {
      200: written(userAddedBody, 'Added, or already there'),
      ...COMMON,
      400: overLimit,
      409: stillRunning,
      422: keyReused,
    },
  },
  {
    method: 'delete',
    path: `${base}/{userId}`,
    operationId: 'removeUser',
    summary: 'Remove one user (idempotent, never held)',
    params: userParams,
    idempotent: true,
    responses: { 200: written(userRemovedBody, 'Removed, or absent'), ...COMMON, 409: stillRunning, 422: keyReused },
  },
];
function operation(route: Route): object {
  const parameters: object[] = Object.entries(route.params.shape).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: toSchema(schema as ZodType),
  }));
  if (route.confirmable) {
    parameters.push({
      name: CONFIRM_HEADER,
      in: 'header',
      required: false,
      description: 'The change_id of the latest 409 shrink hold, to confirm it within one hour',
      schema: { type: 'string', format: 'uuid' },
    });
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'ETag(s) of the list version this write expects, or *; 412 when the list changed since',
      schema: { type: 'string' },
    });
  }
  if (route.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Repeats within 24 h answer the first answer (with Idempotent-Replayed: true) and write nothing again; 422 when the key was used for another request, 409 while its first request still runs (docs/api.md)',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (route.include) {
    parameters.push({
      name: 'include',
      in: 'query',
      required: false,
      description:
        '`expiry`: meta also carries `expiries`, user ID → the time its membership ends (docs/api.md "Memberships that expire")',
      schema: toSchema(usersQuery.shape.include),
    });
  }
  if (route.dryRun) {
    parameters.push({
      name: 'dry_run',
      in: 'query',
      required: false,
      description:
        '`true`: answer what the write would do (200 with the DryRun body, whatever the real write would answer) and write nothing',
      schema: toSchema(dryRunQuery.shape.dry_run),
    });
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: ['User Management API'],
    security: [{ Token: [] }],
    parameters,
    ...(route.body
      ? {
          requestBody: {
            required: !route.optionalBody,
            content: { 'application/json': { schema: schemaOf(route.body) } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries({ ...route.responses, 429: rateLimited }).map(([status, a]) => [
        status,
        {
          description: a.description,
          ...(a.headers
            ? { headers: Object.fromEntries(a.headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])) }
            : {}),
          content: {
            'application/json': {
              schema: a.alternative ? { anyOf: [schemaOf(a.body), schemaOf(a.alternative)] } : schemaOf(a.body),
            },
          },
        },
      ]),
    ),
  };
}

let built: Record<string, unknown> | null = null;

/** The document (built once: it depends on code only). */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method] = operation(route);
  built ??= {
    openapi: '3.1.0',
    info: {
      title: 'Role Link Service — User Management API',
      version: '1',
      description:
        'The token-authenticated API a plugin uses to maintain the user list of its role link. Errors are `{ statusCode, message }` except the 409 shrink hold. docs/api.md holds the decisions the spec left open. `webhooks`: what the service calls on your plugin (/register, /config, /health, /events).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        Token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: "The link's API token with the scheme word `Token` (not Bearer): `Authorization: Token rl_…`",
        },
      },
      schemas: Object.fromEntries(
        Object.entries({ ...COMPONENTS, ...WEBHOOK_COMPONENTS }).map(([name, schema]) => [name, toSchema(schema)]),
      ),
      headers: HEADERS,
    },
    paths,
    webhooks: PLUGIN_WEBHOOKS,
  };
  return built;
}
