import { BROKER_ERROR_CODE_HEADER, BrokerRoute, errorBody, PluginCallMessage, type BrokerLinkRef, type BrokerSubmitResult, type ConfigView } from '@rolelink/contracts';
import { AppError, createLogger, type Logger } from '@rolelink/runtime';

/**
 * How long a caller waits for the broker: a little above the plugin timeouts of spec 4.2 (5 s, and
 * 10 s for POST /config after a possible 5 s GET /config), so a healthy broker always answers first and
 * a missing one yields a 502, never a hang.
 */
export const DEFAULT_BROKER_TIMEOUTS = { register: 7_000, fetchConfig: 7_000, submitConfig: 17_000 } as const;
export type BrokerTimeouts = { register: number; fetchConfig: number; submitConfig: number };

export type BrokerClientOptions = {
  /** The broker's internal base URL (BROKER_URL, e.g. `http://plugin-broker:3002`). */
  baseUrl: string;
  /** BROKER_INTERNAL_TOKEN, sent as a bearer. */
  token: string;
  timeoutsMs?: Partial<BrokerTimeouts>;
  logger?: Logger;
};

/**
 * The one typed client of services/plugin-broker's internal HTTP routes: the plugin calls a caller waits
 * for (design: the broker alone opens connections to plugins). Resolves with the broker's answer or
 * rejects with the AppError the broker raised (spec 7: status, message, code and body as the dashboard
 * and the CLI show them); no broker, a refused connection or a passed timeout give the same 502 as an
 * unreachable plugin.
 */
export class BrokerClient {
  private readonly baseUrl: string;
  private readonly timeouts: BrokerTimeouts;
  private readonly logger: Logger;

  constructor(private readonly opts: BrokerClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeouts = { ...DEFAULT_BROKER_TIMEOUTS, ...opts.timeoutsMs };
    this.logger = opts.logger ?? createLogger('broker-client');
  }

  /**
   * POST {plugin}/register for a link whose row is already committed (the broker reads its URL and
   * encrypted token by id). Rejects with 502 `Failed to register with plugin server` on any failure.
   */
  async register(linkId: bigint | string): Promise<void> {
    await this.call('POST', BrokerRoute.register(String(linkId)), undefined, this.timeouts.register, PluginCallMessage.register);
  }

  /** GET {plugin}/config: the validated form with fresh values, or the iframe page (with rl_token when viewerId is given). */
  fetchConfig(linkId: bigint | string, opts: { refresh?: boolean; viewerId?: string } = {}): Promise<ConfigView> {
    const query = new URLSearchParams({ refresh: String(opts.refresh ?? false), ...(opts.viewerId !== undefined ? { viewer_id: opts.viewerId } : {}) });
    return this.call('GET', `${BrokerRoute.config(String(linkId))}?${query.toString()}`, undefined, this.timeouts.fetchConfig, PluginCallMessage.fetchUnreachable);
  }

  /**
   * POST {plugin}/config after the broker validates `config` against the form (400 with per-field
   * `errors`). A 4xx from the plugin keeps its status; 5xx, timeout or network give 502 (spec 4.2 rule 5).
   * The link is named by guild and role and read by the broker alone (404 `Role link not found`), so the
   * caller need not look it up first.
   */
  submitConfig(link: BrokerLinkRef, config: Record<string, unknown>): Promise<BrokerSubmitResult> {
    return this.call('POST', BrokerRoute.roleConfig(link.guildId, link.roleId), { config }, this.timeouts.submitConfig, PluginCallMessage.submit);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, failure: string): Promise<T> {
    const unavailable = (reason: string, code = 'plugin_unreachable'): AppError => {
      this.logger.warn(`plugin broker call ${method} ${path.split('?')[0]} failed: ${reason}`);
      return new AppError(502, failure, code);
    };
    let status: number;
    let code: string | null;
    let text: string;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.opts.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      code = res.headers.get(BROKER_ERROR_CODE_HEADER);
      text = await res.text();
    } catch (err) {
      throw unavailable(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    }
    if (status >= 200 && status < 300) {
      if (!text) return null as T;
      const parsed = parseJson(text);
      if (parsed === undefined) throw unavailable(`broker answered ${status} with a body that is not JSON`, 'broker_error');
      return parsed as T;
    }
    // Only the broker's own AppErrors (they name their code) reach the caller as they are. A refused
    // bearer, a draining broker or anything else in between is "the broker could not make the call".
    if (code === null || code === 'broker_unauthorized') throw unavailable(`broker answered ${status}${code ? ` (${code})` : ''}`, 'broker_error');
    const parsed = errorBody.safeParse(parseJson(text));
    throw parsed.success ? AppError.fromBody(status, code, parsed.data) : new AppError(status, failure, code);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
