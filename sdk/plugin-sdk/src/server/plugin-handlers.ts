import type {
  PluginConfigSubmitBody,
  PluginEvent,
  PluginEventKind,
  PluginHealthReport,
  PluginLinkBody,
  PluginRegisterBody,
} from '@rolelink/wire-types';
import { EventVerificationError, verifyEvent } from '../event-signature';
import type { IframeResponse, SchemaResponse } from './config-schema';
import { sameToken, type RegisteredLink, type TokenStore } from './token-store';

/**
 * The plugin server contract (spec 4.2) without a web framework: `handlePluginRequest` takes a
 * method, path, headers and parsed JSON body and returns a status and JSON body. `express.ts` and
 * `node-http.ts` adapt it; any other framework needs the same ten lines.
 */

/** `rawBody`: the body's exact text, which POST /events' signature covers (adapters pass it when they read the body). */
export type PluginRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  rawBody?: string;
};

/** A handler of one event kind: throw (or reject) to answer 500, and the service retries the event. */
export type EventHandler<K extends PluginEventKind> = (
  event: PluginEvent<K>,
  link: RegisteredLink,
) => void | Promise<void>;
export type EventHandlers = { [K in PluginEventKind]?: EventHandler<K> };
export type PluginResponse = { status: number; body: unknown };

/** The GET /health answer (spec 2.5); a body with only `status` is valid. */
export type HealthReport = PluginHealthReport;

/** Throw it from a hook to refuse with a 4xx: the service shows `message` to the admin (spec 4.2 rule 5). */
export class PluginError extends Error {
  override readonly name = 'PluginError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type PluginHooks = {
  store: TokenStore;
  /** GET /config: the form (`configForm(...).response(values)`) or `iframeResponse(...)`. */
  getConfig(link: RegisteredLink): SchemaResponse | IframeResponse | Promise<SchemaResponse | IframeResponse>;
  /**
   * POST /config (schema mode): the service validated `config` against your schema already, but check
   * it again. The returned value is the answer body (forwarded to the dashboard); throw PluginError to refuse.
   */
  saveConfig?(link: RegisteredLink, config: Record<string, unknown>): unknown;
  /**
   * After POST /register stored the token: e.g. push the first list (without blocking the answer).
   * `registration`: what the service said of the role's holders (undefined from a service that does not
   * send it); on a `handover` link, a first list that leaves out many of `currentHolders` is held.
   */
  onRegister?(
    link: RegisteredLink,
    previous: RegisteredLink | undefined,
    registration: Registration | undefined,
  ): void | Promise<void>;
  /** After DELETE /config removed the registration (the service sends it after the link's `link.deleted` event). */
  onDelete?(link: RegisteredLink): void | Promise<void>;
  /** GET /health (no Authorization). Default: `{ status: 'healthy' }`. */
  health?(): HealthReport | Promise<HealthReport>;
  /**
   * Signed events (docs/api.md "Events to plugins"), by kind; more with `handler.on(kind, fn)`. The kinds
   * with a handler are asked for in the /register answer and the /health report; each POST /events is
   * verified (signature, timestamp) before its handler runs.
   */
  events?: EventHandlers;
};

/**
 * The role's holders when the link was created (POST /register's `member_mode` and `current_holders`).
 * `handover`: they count as the previous list of your first full list, so one that leaves out a quarter
 * of them or more (at least 10), or is empty, answers 409 `confirm_required` until the owner confirms.
 * `keep`: they are on the list already.
 */
export type Registration = { memberMode: 'handover' | 'keep'; currentHolders: number };

function registrationOf(body: unknown): Registration | undefined {
  const b = body as Partial<Record<keyof PluginRegisterBody, unknown>> | null;
  const mode = b?.member_mode;
  const holders = b?.current_holders;
  if ((mode !== 'handover' && mode !== 'keep') || typeof holders !== 'number' || !Number.isSafeInteger(holders))
    return undefined;
  return { memberMode: mode, currentHolders: holders };
}

const TOKEN_HEADER = /^Token\s+(rl_\S+)\s*$/;
const ID = /^\d{1,20}$/;

export function tokenOf(headers: PluginRequest['headers']): string | null {
  const raw = headers.authorization ?? headers.Authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  return TOKEN_HEADER.exec(value ?? '')?.[1] ?? null;
}

function linkOf(body: unknown): { guildId: string; roleId: string } | null {
  const b = body as Partial<Record<keyof PluginLinkBody, unknown>> | null;
  if (typeof b?.guild_id !== 'string' || typeof b.role_id !== 'string' || !ID.test(b.guild_id) || !ID.test(b.role_id))
    return null;
  return { guildId: b.guild_id, roleId: b.role_id };
}

const error = (status: number, message: string): PluginResponse => ({ status, body: { error: message } });
const UNAUTHORIZED = error(401, 'Authorization: Token rl_… of a registered link required');

export type PluginHandler = {
  /** Handles one event kind (replacing an earlier handler of it); the kind is asked for from then on. */
  on<K extends PluginEventKind>(kind: K, fn: EventHandler<K>): PluginHandler;
  /** True for the routes of spec 4.2 (adapters read a body only for these). */
  matches(method: string, path: string): boolean;
  /** The answer; null when the request is not one of the contract's routes (let the framework go on). */
  handle(req: PluginRequest): Promise<PluginResponse | null>;
};

const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\/+$/, '') || '/'}`;

export function createPluginHandler(hooks: PluginHooks): PluginHandler {
  const { store } = hooks;
  const handlers: EventHandlers = { ...hooks.events };
  const wanted = () => Object.keys(handlers).filter((k) => handlers[k as PluginEventKind] !== undefined);
  /** The opt-in: absent when no handler is registered, so such a plugin answers exactly as before. */
  const optIn = (): { events?: string[] } => (wanted().length > 0 ? { events: wanted() } : {});

  /** The registration the request's body names, only when the request carries that link's token. */
  async function authorizedLink(req: PluginRequest): Promise<RegisteredLink | PluginResponse> {
    const token = tokenOf(req.headers);
    const named = linkOf(req.body);
    if (!named) return error(400, 'guild_id and role_id (numeric strings) are required');
    const link = token ? await store.get(named.guildId, named.roleId) : undefined;
    return link && token && sameToken(link.token, token) ? link : UNAUTHORIZED;
  }

  const routes: Record<string, (req: PluginRequest) => Promise<PluginResponse>> = {
    'GET /health': async () => ({
      status: 200,
      body: {
        ...optIn(),
        ...(hooks.health ? await hooks.health() : { status: 'healthy', timestamp: new Date().toISOString() }),
      },
    }),

    'POST /register': async (req) => {
      const token = tokenOf(req.headers);
      if (!token) return error(401, 'Authorization: Token rl_… required');
      const named = linkOf(req.body);
      if (!named) return error(400, 'guild_id and role_id (numeric strings) are required');
      const previous = await store.get(named.guildId, named.roleId);
      const link = { ...named, token };
      await store.save(link);
      await hooks.onRegister?.(link, previous, registrationOf(req.body));
      return { status: 200, body: { ok: true, ...optIn() } };
    },

    'POST /events': async (req) => {
      const named = linkOf(req.body);
      const link = named ? await store.get(named.guildId, named.roleId) : undefined;
      if (!link) return error(401, 'event for a link that is not registered here');
      let event: PluginEvent;
      try {
        // The exact bytes signed; a body parsed by an earlier JSON parser is re-serialised, which the
        // service's compact JSON survives (docs/plugin-quickstart.md recommends raw bodies anyway).
        event = verifyEvent(req.headers, req.rawBody ?? JSON.stringify(req.body), link.token);
      } catch (err) {
        if (err instanceof EventVerificationError) return error(401, `invalid event signature: ${err.message}`);
        throw err;
      }
      const handler = handlers[event.type] as EventHandler<PluginEventKind> | undefined;
      // A kind without a handler is acknowledged (2xx): retrying it would not make a handler appear.
      if (handler) await handler(event, link);
      return { status: 204, body: null };
    },

    'GET /config': async (req) => {
      const token = tokenOf(req.headers);
      const link = token ? await store.findByToken(token) : undefined;
      if (!link) return UNAUTHORIZED;
      return { status: 200, body: await hooks.getConfig(link) };
    },

    'POST /config': async (req) => {
      const link = await authorizedLink(req);
      if ('status' in link) return link;
      const config = (req.body as Partial<Record<keyof PluginConfigSubmitBody, unknown>>).config;
      if (typeof config !== 'object' || config === null || Array.isArray(config))
        return error(400, 'config must be an object');
      if (!hooks.saveConfig) return error(400, 'This plugin is configured in its own page');
      return { status: 200, body: (await hooks.saveConfig(link, config as Record<string, unknown>)) ?? { ok: true } };
    },

    'DELETE /config': async (req) => {
      const link = await authorizedLink(req);
      if ('status' in link) return link;
      await store.delete(link.guildId, link.roleId);
      await hooks.onDelete?.(link);
      return { status: 200, body: { ok: true } };
    },
  };

  const api: PluginHandler = {
    on(kind, fn) {
      (handlers as Record<string, unknown>)[kind] = fn;
      return api;
    },
    matches: (method, path) => routeKey(method, path) in routes,
    async handle(req) {
      const route = routes[routeKey(req.method, req.path)];
      if (!route) return null;
      try {
        return await route(req);
      } catch (err) {
        if (err instanceof PluginError) return error(err.status, err.message);
        throw err;
      }
    },
  };
  return api;
}
