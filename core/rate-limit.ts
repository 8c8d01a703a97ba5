// What a rate limit looks like in an answer, one rule for the conformance client (core/node/rpc-client.ts: retried,
// never judged) and the load's classes (load/shared/classify.ts: `rate_limited`, named in the verdict as the key's budget).

/** EIP-1474 "limit exceeded" and providers' own quota answers (some put the HTTP status in the code). */
const RATE_LIMIT_CODES = new Set([-32005, 429]);
const RATE_LIMIT_MESSAGE = /rate.?limit|too many requests|exceeded .*(quota|limit|capacity)|quota|capacity exceeded|throttl/i;

/** By its code alone: what the conformance client takes as a limit in an HTTP 200 body (a message is the endpoint's own words, and a revert reason may say "quota"). */
export const isRateLimitCode = (code: unknown): boolean => typeof code === 'number' && RATE_LIMIT_CODES.has(code);

export function isRateLimit(code: number | undefined, message: unknown): boolean {
  return isRateLimitCode(code) || (typeof message === 'string' && RATE_LIMIT_MESSAGE.test(message));
}
