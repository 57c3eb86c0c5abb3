/** Consecutive user ids from `first`: the members the emulator generates for the demo guild. */
export function demoMemberIds(first: string, count: number): string[] {
  const start = BigInt(first);
  return Array.from({ length: count }, (_, i) => String(start + BigInt(i)));
}

export type PushResult = { status: number; body: unknown };

/**
 * Replaces the link's user list (PUT /users), as a plugin does. Right after /register the service has
 * not committed the link yet (it does so once /register answered), so 401/403/404 are retried for a
 * while; anything else is final.
 */
export async function pushList(
  apiUrl: string,
  link: { guildId: string; roleId: string; token: string },
  userIds: string[],
  { retryForMs = 0, signal }: { retryForMs?: number; signal?: AbortSignal } = {},
): Promise<PushResult> {
  const url = `${apiUrl.replace(/\/$/, '')}/api/role-link/${link.guildId}/${link.roleId}/users`;
  const deadline = Date.now() + retryForMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4000)) {
    const res = await fetch(url, {
      method: 'PUT',
      headers: { Authorization: `Token ${link.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(userIds),
      signal,
    }).catch((err: unknown) => ({ status: 0, json: async () => ({ error: String(err) }) }));
    const body = await res.json().catch(() => null);
    const retryable = res.status === 0 || res.status === 401 || res.status === 403 || res.status === 404 || res.status >= 500;
    if (!retryable || Date.now() + delay > deadline) return { status: res.status, body };
    await new Promise((r) => setTimeout(r, delay));
  }
}
