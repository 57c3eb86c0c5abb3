import { createHash } from 'node:crypto';

/**
 * Names a bot application by its token without keeping the token: the token's SHA-256, first 12 hex
 * digits, the same id the shared rate limiter scopes its Redis keys with. The worker and the dashboard
 * hold the same token, so they find the same `bot_application` row (docs/sync-engine.md).
 */
export function applicationKey(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}
