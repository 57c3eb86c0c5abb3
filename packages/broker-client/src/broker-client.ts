import {
  BROKER_ERROR_CODE_HEADER,
  BrokerRoute,
  errorBody,
  PluginCallMessage,
  type BrokerLinkRef,
  type BrokerSubmitResult,
  type ConfigView,
} from '@rolelink/contracts';
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
 * The call failed at the broker, not at the plugin: nothing answered at BROKER_URL (refused, reset,
 * timed out), or what answered is not the broker, or the broker refused our bearer. Its message and
 * body are the call's §7 502 (the dashboard shows them to a guild admin, who cannot fix the broker);
 * `brokerUrl` and `reason` are for operators: the CLI prints them (forOperator()) so nobody goes
 * looking for the fault in a plugin that was never called.
 */
export class BrokerUnavailableError extends AppError {
  constructor(
    failure: string,
    code: 'broker_unreachable' | 'broker_error',
    readonly brokerUrl: string,
    /** What happened, e.g. `connect ECONNREFUSED 127.0.0.1:3002` or `answered 401 (broker_unauthorized)`. */
    readonly reason: string,
  ) {
    super(502, failure, code);
  }

  /**
   * The error an operator's tool shows: where it looked for the broker (`source`: where that address came
   * from, e.g. "BROKER_URL"), why it failed, that the plugin was not called, and what to check.
   */
  forOperator(source = 'BROKER_URL'): AppError {
    const at = `${this.brokerUrl} (${source})`;
    const what =
      this.code === 'broker_unreachable'
        ? `the plugin broker did not answer at ${at}: ${this.reason}. The plugin was not called. Is the broker running there? Otherwise set BROKER_URL to its address`
        : `the plugin broker at ${at} could not be used: it ${this.reason}. The plugin was not called. ${this.reason.includes('broker_unauthorized') ? 'BROKER_INTERNAL_TOKEN must be the broker’s own value' : 'Is BROKER_URL the plugin broker’s address?'}`;
    return AppError.pluginFailure(502, what, this.code, this.reason);
  }
}

type ErrorLike = { name?: string; message?: string; code?: string; cause?: unknown; errors?: unknown[] };
const errorLike = (v: unknown): ErrorLike | null =>
  typeof v === 'object' && v !== null && 'message' in v ? (v as ErrorLike) : null;

/**
 * The cause of a failed fetch: undici hides the socket error (`connect ECONNREFUSED …`) in `cause`, an
 * AggregateError with an empty message when every address of a name refused. Duck-typed: the cause may
 * come from another realm (instanceof Error fails there).
 */
function causeOf(err: unknown): string {
  const e = errorLike(err);
  if (!e) return String(err);
  if (e.name === 'TimeoutError') return `no answer within the deadline (${e.message})`;
  const inner = errorLike(e.cause);
  if (!inner) return `${e.name}: ${e.message}`;
  if (inner.message) return inner.message;
  const each = (inner.errors ?? []).map((x) => errorLike(x)?.message).filter(Boolean);
  return each.length ? each.join('; ') : (inner.code ?? inner.name ?? 'no answer');
}

/**
 * The one typed client of services/plugin-broker's internal HTTP routes: the plugin calls a caller waits
 * for (design: the broker alone opens connections to plugins). Resolves with the broker's answer or
 * rejects with the AppError the broker raised (spec 7: status, message, code and body as the dashboard
 * and the CLI show them); no broker, a refused connection or a passed timeout give the call's 502 as a
 * BrokerUnavailableError (`broker_unreachable`), which says where and why for the CLI.
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
    await this.call(
      'POST',
      BrokerRoute.register(String(linkId)),
      undefined,
      this.timeouts.register,
      PluginCallMessage.register,
    );
  }

  /** GET {plugin}/config: the validated form with fresh values, or the iframe page (with rl_token when viewerId is given). */
  fetchConfig(linkId: bigint | string, opts: { refresh?: boolean; viewerId?: string } = {}): Promise<ConfigView> {
    const query = new URLSearchParams({
      refresh: String(opts.refresh ?? false),
      ...(opts.viewerId !== undefined ? { viewer_id: opts.viewerId } : {}),
    });
    return this.call(
      'GET',
      `${BrokerRoute.config(String(linkId))}?${query.toString()}`,
      undefined,
      this.timeouts.fetchConfig,
      PluginCallMessage.fetchUnreachable,
    );
  }

  /**
   * POST {plugin}/config after the broker validates `config` against the form (400 with per-field
   * `errors`). A 4xx from the plugin keeps its status; 5xx, timeout or network give 502 (spec 4.2 rule 5).
   * The link is named by guild and role and read by the broker alone (404 `Role link not found`), so the
   * caller need not look it up first.
   */
  submitConfig(link: BrokerLinkRef, config: Record<string, unknown>): Promise<BrokerSubmitResult> {
    return this.call(
      'POST',
      BrokerRoute.roleConfig(link.guildId, link.roleId),
      { config },
      this.timeouts.submitConfig,
      PluginCallMessage.submit,
    );
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    timeoutMs: number,
    failure: string,
  ): Promise<T> {
    const unavailable = (
      reason: string,
      code: 'broker_unreachable' | 'broker_error' = 'broker_unreachable',
    ): AppError => {
      this.logger.warn(`plugin broker call ${method} ${path.split('?')[0]} failed: ${reason}`);
      return new BrokerUnavailableError(failure, code, this.baseUrl, reason);
    };
    let status: number;
    let code: string | null;
    let text: string;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.opts.token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      code = res.headers.get(BROKER_ERROR_CODE_HEADER);
      text = await res.text();
    } catch (err) {
      throw unavailable(causeOf(err));
    }
    if (status >= 200 && status < 300) {
      if (!text) return null as T;
      const parsed = parseJson(text);
      if (parsed === undefined) throw unavailable(`answered ${status} with a body that is not JSON`, 'broker_error');
      return parsed as T;
    }
    // Only the broker's own AppErrors (they name their code) reach the caller as they are. A refused
    // bearer, a draining broker or anything else in between is "the broker could not make the call".
    if (code === null || code === 'broker_unauthorized')
      throw unavailable(
        `answered ${status}${code ? ` (${code})` : ' without the broker’s error code'}`,
        'broker_error',
      );
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
