/**
 * Why a plugin call produced no usable answer. Callers map kinds to the spec's messages (spec 7) and to
 * the `rolelink_plugin_calls_total` outcome label.
 */
export type FailureKind = 'timeout' | 'network' | 'blocked' | 'redirect';

export class PluginCallFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** The socket's or TLS layer's error code (`DEPTH_ZERO_SELF_SIGNED_CERT`, `ECONNREFUSED`…), when there was one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'PluginCallFailure';
  }
}

/** Raised inside the agent when a connection would reach a forbidden address; got wraps it, we unwrap by code. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_PLUGIN_ADDRESS_BLOCKED';
  constructor(host: string, address: string) {
    super(`plugin host ${host} resolves to a private or reserved address (${address})`);
    this.name = 'BlockedAddressError';
  }
}
