import { promises as dns, type LookupAddress } from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { isForbiddenAddress } from '@rolelink/domain';
import { BlockedAddressError } from './failure';

export type ResolvedAddress = { address: string; family: number };
/** Name resolution, injectable so tests can make a public-looking name resolve to a private address. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

function bare(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/**
 * May `host` (the URL's host) be reached at `address`? The allow-list (ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS)
 * matches the URL's host only, name or IP literal: allowing `127.0.0.1` does not let a name that
 * resolves to 127.0.0.1 through.
 */
export function addressPolicy(allowHosts: readonly string[]) {
  const allowed = new Set(allowHosts.map(bare));
  return (host: string, address: string): boolean => allowed.has(bare(host)) || !isForbiddenAddress(address);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that validates EVERY address a name resolves to before the socket may use
 * any of them (Node's happy-eyeballs tries them all). This is the DNS-rebinding defence: the check runs
 * on the address actually connected to, after resolution, not on the URL.
 */
export function guardedLookup(resolve: Resolver, permits: (host: string, address: string) => boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const family =
          options.family === 4 || options.family === 'IPv4'
            ? 4
            : options.family === 6 || options.family === 'IPv6'
              ? 6
              : 0;
        const addresses = family ? found.filter((a) => a.family === family) : found;
        const first = addresses[0];
        if (!first) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          return callback(err, '');
        }
        const bad = addresses.find((a) => !permits(hostname, a.address));
        if (bad) return callback(new BlockedAddressError(hostname, bad.address), '');
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

export type GuardedAgentOptions = {
  allowHosts: readonly string[];
  resolve?: Resolver;
  /** Extra trusted CA (tests). Production leaves it unset: the system store plus NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
};

/**
 * An https.Agent whose every connection is checked against private and reserved ranges
 * (isForbiddenAddress: loopback, RFC 1918, link-local/metadata, CGNAT, ULA, IPv4-mapped IPv6, NAT64,
 * 6to4, Teredo, 198.18/15, …), except hosts on the allow-list:
 * - IP-literal hosts (WHATWG URL has already turned `2130706433`, `0x7f.1` into dotted quads) are checked
 *   before connecting, since Node skips `lookup` for them;
 * - names go through guardedLookup;
 * - and the socket's real remote address is checked again on connect, before TLS or HTTP bytes flow.
 * We do not use request-filtering-agent: its allow-list takes IPs only (our setting takes host names)
 * and its ranges differ from the ones the URL check at link creation uses.
 */
export class GuardedAgent extends https.Agent {
  private readonly permits: (host: string, address: string) => boolean;
  private readonly resolve: Resolver;

  constructor(options: GuardedAgentOptions) {
    super({ keepAlive: false, ...(options.ca ? { ca: options.ca } : {}) });
    this.permits = addressPolicy(options.allowHosts);
    this.resolve = options.resolve ?? systemResolver;
  }

  override createConnection(
    options: https.RequestOptions & { host?: string; servername?: string },
    callback: (err: Error | null, socket?: Duplex) => void,
  ): Duplex | undefined {
    const host = bare(options.host ?? options.hostname ?? '');
    if (net.isIP(host) && !this.permits(host, host)) {
      process.nextTick(() => callback(new BlockedAddressError(host, host)));
      return undefined;
    }
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with this agent as `this` on the next line
    const create = https.Agent.prototype.createConnection as unknown as (
      this: https.Agent,
      o: unknown,
      cb: unknown,
    ) => net.Socket;
    const socket = create.call(this, { ...options, lookup: guardedLookup(this.resolve, this.permits) }, callback);
    socket.once('connect', () => {
      const remote = socket.remoteAddress;
      if (remote === undefined || !this.permits(host, remote))
        socket.destroy(new BlockedAddressError(host, remote ?? 'unknown'));
    });
    return socket;
  }
}
