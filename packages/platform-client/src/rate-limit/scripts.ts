/**
 * Lua scripts of the shared limiter. Each runs atomically in Redis, and all time comes from Redis'
 * own clock (TIME), so workers on hosts with skewed clocks still agree on windows.
 *
 * Bucket state (a hash per bucket and major parameter): `limit`, `remaining`, `reset` (ms, Redis
 * clock, already including the safety offset) and `probe` (ms until which one probe request owns an
 * unknown window). A bucket is "unknown" before its first answer and again once its reset passed: then
 * exactly one request (the probe) may go, and its answer's headers open the window for the others.
 * This is conservative until discovery and never assumes a window shape (fixed or sliding).
 */
import { backoffExpression } from '@rolelink/wire-types/backoff';

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS: bucket, global log (sorted set: one member per request, scored by its answer's time), block-until,
 * global sequence. ARGV: global window ms, global limit, probe lease ms, bucket ttl ms, in-flight lease ms.
 * Returns { granted (1|0), waitMs, kind, slot } — kind: probe|token when granted; block|bucket|probe|global
 * when not; slot: the request's member of the global log (ANSWERED scores it when the answer is back).
 * The global limit counts a request from its grant until `window` after its answer: a granted request is
 * scored `now + in-flight lease` (counted whatever happens) until ANSWERED re-scores it with the answer's
 * time. A request reaches the platform somewhere between its grant and its answer, so this bounds what
 * any platform window of that length can see, however long the request took to get there (docs/sync-
 * engine.md, "Global limit"). Nothing is reserved ahead, so a process that stalls cannot release a burst
 * of queued slots later.
 */
export const ACQUIRE = `${NOW}
local window = tonumber(ARGV[1])
local globalLimit = tonumber(ARGV[2])
local probeLease = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local inFlightLease = tonumber(ARGV[5])

local blocked = tonumber(redis.call('GET', KEYS[3]) or '0')
if blocked > now then return {0, blocked - now, 'block', ''} end

local b = redis.call('HMGET', KEYS[1], 'remaining', 'reset', 'probe')
local remaining, reset, probe = tonumber(b[1]), tonumber(b[2]), tonumber(b[3])
local kind
-- A bucket known only from a 429 (no window seen yet) has a reset and nothing remaining: it waits too.
if reset == nil or now >= reset then
  if probe ~= nil and probe > now then return {0, math.min(probe - now, 25), 'probe', ''} end
  kind = 'probe'
else
  if remaining == nil or remaining <= 0 then return {0, reset - now, 'bucket', ''} end
  kind = 'token'
end

-- Answered more than a window ago: the platform has counted it in a window that is over.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
if redis.call('ZCARD', KEYS[2]) >= globalLimit then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2])
  -- Every counted request still in flight: the first answer frees nothing for a window, but look again soon.
  if oldest > now then return {0, 25, 'global', ''} end
  local wait = math.ceil(oldest + window - now)
  if wait < 1 then wait = 1 end
  return {0, wait, 'global', ''}
end
local slot = tostring(redis.call('INCR', KEYS[4]))
redis.call('ZADD', KEYS[2], now + inFlightLease, slot)
redis.call('PEXPIRE', KEYS[2], math.ceil(window + inFlightLease) + 1000)

if kind == 'probe' then
  redis.call('HSET', KEYS[1], 'probe', tostring(now + probeLease))
else
  redis.call('HINCRBY', KEYS[1], 'remaining', -1)
end
redis.call('PEXPIRE', KEYS[1], ttl)
return {1, 0, kind, slot}
`;

/**
 * KEYS: global log. ARGV: slot. The request's answer is back (or it failed to send): from now it counts
 * for one window more, instead of the in-flight lease. XX: a slot already swept away stays away.
 */
export const ANSWERED = `${NOW}
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return 1
`;

/**
 * KEYS: bucket, edge-ban streak. ARGV: wasProbe (1|0), limit, remaining, resetAfterMs, offsetMs, ttlMs.
 * A probe's answer opens the window as the platform reports it; any other answer can only lower the
 * remaining count (answers of one window arrive out of order) or push the reset later. An answer from
 * the API itself (it has bucket headers) ends a run of edge bans.
 */
export const OBSERVE = `${NOW}
redis.call('DEL', KEYS[2])
local wasProbe = ARGV[1] == '1'
local limit = tonumber(ARGV[2])
local remaining = tonumber(ARGV[3])
local resetAt = now + tonumber(ARGV[4]) + tonumber(ARGV[5])
local ttl = tonumber(ARGV[6])
local b = redis.call('HMGET', KEYS[1], 'limit', 'remaining', 'reset')
local curReset = tonumber(b[3])
if wasProbe or curReset == nil then
  redis.call('HSET', KEYS[1], 'limit', limit, 'remaining', remaining, 'reset', resetAt)
  redis.call('HDEL', KEYS[1], 'probe')
elseif now < curReset then
  local curRemaining = tonumber(b[2]) or remaining
  if remaining < curRemaining then redis.call('HSET', KEYS[1], 'remaining', remaining) end
  if resetAt > curReset then redis.call('HSET', KEYS[1], 'reset', resetAt) end
  redis.call('HSET', KEYS[1], 'limit', limit)
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

/** KEYS: bucket. Frees a probe lease whose request produced no usable headers (or failed to send). */
export const RELEASE_PROBE = `
redis.call('HDEL', KEYS[1], 'probe')
return 1
`;

/**
 * A 429. KEYS: bucket, block-until. ARGV: isGlobal (1|0), retryAfterMs, offsetMs, ttlMs.
 * Global: every request of the token waits. Otherwise the bucket is empty until retry_after passes.
 */
export const RATE_LIMITED = `${NOW}
local untilMs = now + tonumber(ARGV[2]) + tonumber(ARGV[3])
if ARGV[1] == '1' then
  local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
  if untilMs > cur then redis.call('SET', KEYS[2], tostring(untilMs), 'PX', math.ceil(untilMs - now + 1000)) end
else
  redis.call('HSET', KEYS[1], 'remaining', 0, 'reset', untilMs)
  redis.call('HDEL', KEYS[1], 'probe')
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
end
return 1
`;

/**
 * An invalid request (401, 403, 429 not of scope shared). KEYS: window counter, block-until, auth-failure counter.
 * ARGV: status, windowMs, budget, authBaseMs, authMaxMs.
 * Counts per platform window; past the budget (a small fraction of the ban threshold) every request
 * waits for the window to end. A 401 blocks everything with an escalating back-off: the token is wrong
 * and retrying at full speed is how bots get banned.
 * Returns { count in window, blockMs (0 when none) }.
 */
export const INVALID = `${NOW}
local windowMs = tonumber(ARGV[2])
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], windowMs) end
local blockMs = 0
if count >= tonumber(ARGV[3]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then blockMs = ttl end
end
if ARGV[1] == '401' then
  local n = redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], windowMs)
  local backoff = ${backoffExpression('lua', { firstMs: 'tonumber(ARGV[4])', maxMs: 'tonumber(ARGV[5])' }, 'n - 1')}
  if backoff > blockMs then blockMs = backoff end
end
if blockMs > 0 then
  local untilMs = now + blockMs
  local cur = tonumber(redis.call('GET', KEYS[2]) or '0')
  if untilMs > cur then redis.call('SET', KEYS[2], tostring(untilMs), 'PX', math.ceil(blockMs + 1000)) end
end
return {count, blockMs}
`;

/**
 * A 429 from the platform's edge (no X-RateLimit-* header: the invalid-request ban). KEYS: block-until,
 * edge-ban-until, edge-ban streak. ARGV: retryAfterMs, offsetMs, maxMs, streakTtlMs.
 * Blocks every request of the token. A ban met after the previous one's block ended (the first request
 * let through was banned again) is the next of a run: the block doubles, Retry-After × 2^(n-1), capped at
 * max(Retry-After, maxMs). Answers to requests already in flight when the block began (many processes
 * meet one ban at once) only make sure the block covers their Retry-After: one ban, one step.
 * Returns { 1 when this answer began a new ban | 0, ms blocked from now, n (the run's length) }.
 */
export const EDGE_BAN = `${NOW}
local retry = tonumber(ARGV[1])
local offset = tonumber(ARGV[2])
local edgeUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
local fresh = 0
local n = tonumber(redis.call('GET', KEYS[3]) or '0')
local untilMs
if edgeUntil <= now then
  fresh = 1
  n = redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
  local wait = ${backoffExpression('lua', { firstMs: 'retry', maxMs: 'math.max(retry, tonumber(ARGV[3]))' }, 'n - 1')}
  untilMs = now + wait + offset
else
  untilMs = math.max(edgeUntil, now + retry + offset)
end
redis.call('SET', KEYS[2], tostring(untilMs), 'PX', math.ceil(untilMs - now + 1000))
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > cur then redis.call('SET', KEYS[1], tostring(untilMs), 'PX', math.ceil(untilMs - now + 1000)) end
return {fresh, untilMs - now, n}
`;
