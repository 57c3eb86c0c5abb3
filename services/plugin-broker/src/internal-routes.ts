import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import {
  BROKER_ERROR_CODE_HEADER,
  brokerFetchConfigQuery,
  brokerLinkParams,
  brokerRoleParams,
} from '@rolelink/contracts';
import { AppError, input, validate } from '@rolelink/runtime';
import { fetchConfig } from './calls/fetch-config';
import { registerLink } from './calls/register';
import { submitConfig } from './calls/submit-config';
import type { BrokerContext } from './context';

export type InternalRoutesDeps = {
  ctx: BrokerContext;
  /** BROKER_INTERNAL_TOKEN: every internal call carries it as a bearer. */
  token: string;
  /** After a successful register: the new link's plugin is checked now (its admin is looking at its card). Never rejects. */
  registered(linkId: string): Promise<void>;
};

const digest = (v: string) => createHash('sha256').update(v).digest();

/** Compares SHA-256 digests in constant time, so neither the token nor its length leaks through timing. */
function bearer(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    next(
      timingSafeEqual(digest(given), expected)
        ? undefined
        : AppError.unauthorized('Missing or invalid internal token', 'broker_unauthorized'),
    );
  };
}

/** The AppError's code travels in a header: the body stays the spec's, and BrokerClient rebuilds the same error. */
const codeHeader: ErrorRequestHandler = (err, _req, res, next) => {
  if (err instanceof AppError) res.set(BROKER_ERROR_CODE_HEADER, err.code);
  next(err);
};

const linkOnly = { params: brokerLinkParams };
const fetchParts = { params: brokerLinkParams, query: brokerFetchConfigQuery };
const submitParts = { params: brokerRoleParams };

/**
 * The plugin calls a caller waits for (register, config get and submit), over internal HTTP: reachable
 * only from the dashboard and the CLI (k8s/network-policies.yaml) and only with the internal token.
 * `@rolelink/broker-client` is their one client. The plugin timeouts (5 s, 10 s) sit below the client's,
 * so a healthy broker always answers before its caller gives up.
 */
export function internalRoutes(deps: InternalRoutesDeps): Router {
  const { ctx } = deps;
  const router = Router();
  router.use('/internal', bearer(deps.token), express.json({ limit: '1mb' }));

  router.post('/internal/links/:linkId/register', validate(linkOnly), async (_req, res) => {
    const { params } = input<typeof linkOnly>(res);
    await registerLink(ctx, params.linkId);
    // Not awaited: the follow-up check is best effort and must not hold the answer while Redis is away.
    void deps.registered(params.linkId);
    res.status(204).end();
  });

  router.get('/internal/links/:linkId/config', validate(fetchParts), async (_req, res) => {
    const { params, query } = input<typeof fetchParts>(res);
    res.json(
      await fetchConfig(ctx, {
        linkId: params.linkId,
        refresh: query.refresh,
        ...(query.viewer_id !== undefined ? { viewerId: query.viewer_id } : {}),
      }),
    );
  });

  // The body is not parsed again here: its caller did, and submitConfig checks `config` against the form,
  // once (one validation and one link read per save on the server side).
  router.post('/internal/guilds/:guildId/links/:roleId/config', validate(submitParts), async (req, res) => {
    const { params } = input<typeof submitParts>(res);
    const config =
      typeof req.body === 'object' && req.body !== null ? (req.body as { config?: unknown }).config : undefined;
    res.json(await submitConfig(ctx, { link: { guildId: params.guildId, roleId: params.roleId }, config }));
  });

  router.use('/internal', codeHeader);
  return router;
}
