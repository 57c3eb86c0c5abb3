/**
 * The host objects (Node's, or a browser's) that the SDK's public types name, declared here as the few
 * members the SDK uses, so its published .d.ts type-check with neither Node nor DOM types in scope:
 * TypeScript 6 and later load no `@types` package unless the tsconfig lists it (`"types": ["node"]`), and
 * a plugin's tsconfig should not need to. Node's AbortSignal, fetch, http.IncomingMessage and
 * ServerResponse, and Express's request and response, all fit these shapes.
 */

/** An AbortSignal: Node's and the DOM's fit. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the SDK reads of a fetch answer. */
export interface FetchAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * A fetch-compatible function (Node's global fetch, undici's, a wrapper of yours), called as
 * `fetch(url, init)` with a standard RequestInit. `init` is typed `never` so that any such function fits
 * without naming RequestInit, which only the DOM or Node types declare.
 */
export type FetchLike = (input: string, init: never) => Promise<FetchAnswer>;

/** An incoming request: node:http's IncomingMessage, Express's or Connect's request. */
export interface IncomingRequestLike extends AsyncIterable<Uint8Array | string> {
  method?: string;
  url?: string;
  /** Express's path (without the query); read from `url` when absent. */
  path?: string;
  headers: Record<string, string | string[] | undefined>;
  /** Set by a JSON body parser that ran before (express.json()). */
  body?: unknown;
}

/** A response being written: node:http's ServerResponse, Express's or Connect's response. */
export interface ServerResponseLike {
  statusCode: number;
  setHeader(name: string, value: string | number): unknown;
  end(chunk: string): unknown;
}
