import { RoleLinkApiError, RoleLinkClient, type ReplaceOutcome } from '@rolelink/plugin-sdk';

/** Consecutive user ids from `first`: the members the emulator generates for the demo guild. */
export function demoMemberIds(first: string, count: number): string[] {
  const start = BigInt(first);
  return Array.from({ length: count }, (_, i) => String(start + BigInt(i)));
}

const NOT_READY = new Set([401, 403, 404]);

/**
 * Replaces the link's user list through the SDK (PUT, or the chunked upload for a long list; the SDK
 * retries network errors, 5xx and 429). A token that arrived at /register may not be usable for a
 * moment (a link being created, or re-created), so 401/403/404 are retried here for `retryForMs`;
 * anything else is final. A large removal comes back as `{ held }`: the demo leaves it to the server
 * owner (the dashboard's Apply removals) rather than confirming it itself.
 */
export async function pushList(
  apiUrl: string,
  link: { guildId: string; roleId: string; token: string },
  userIds: string[],
  { retryForMs = 0, signal }: { retryForMs?: number; signal?: AbortSignal } = {},
): Promise<ReplaceOutcome> {
  const client = new RoleLinkClient({ baseUrl: apiUrl, ...link, userAgent: 'rolelink-example-plugin' });
  const deadline = Date.now() + retryForMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4000)) {
    try {
      return await client.replaceUsers(userIds, { signal });
    } catch (err) {
      if (!(err instanceof RoleLinkApiError && NOT_READY.has(err.statusCode)) || Date.now() + delay > deadline)
        throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
      signal?.throwIfAborted();
    }
  }
}
