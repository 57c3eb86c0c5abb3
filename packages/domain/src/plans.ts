/** Plan limits of spec section 8, in one table. */
export type Plan = 'free' | 'premium';

export const PLAN_LIMITS = {
  free: { syncedUsers: 100, storedUsers: 10_000, perPut: 10_000, baseSlots: 2, maxSlots: null, chunked: false },
  premium: {
    syncedUsers: 30_000_000,
    storedUsers: 30_000_000,
    perPut: 100_000,
    baseSlots: 210,
    maxSlots: 210,
    chunked: true,
  },
} as const satisfies Record<
  Plan,
  {
    syncedUsers: number;
    storedUsers: number;
    perPut: number;
    baseSlots: number;
    maxSlots: number | null;
    chunked: boolean;
  }
>;

export const MAX_CHUNK_USERS = 100_000;
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
export const CONFIRM_WINDOW_MS = 60 * 60 * 1000;
/** The owner's "Ask the plugin to resend": at most one list.resend_requested per applied removal in this time. */
export const RESEND_REQUEST_INTERVAL_MS = 5 * 60 * 1000;

export function limitsFor(plan: Plan) {
  return PLAN_LIMITS[plan];
}

export function storedLimitMessage(plan: Plan): string {
  const max = PLAN_LIMITS[plan].storedUsers.toLocaleString('en-US');
  return plan === 'free'
    ? `Maximum ${max} users per role link. Upgrade to premium to store up to ${PLAN_LIMITS.premium.storedUsers.toLocaleString('en-US')}.`
    : `Maximum ${max} users per role link`;
}
