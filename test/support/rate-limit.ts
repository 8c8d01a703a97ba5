// A key's sustained rate limit, as a well-known provider answers it (facts.md): beyond `perS` requests a second
// (a token bucket holding one second's worth), HTTP 429 with a JSON-RPC -32005 "rate limit exceeded" body and a
// Retry-After of 1 s. Every request to the key counts, batches and malformed bodies too.
import type { Fault } from './fault-proxy.ts';

export function rateLimited(perS: number): Fault & { throttled: () => number } {
  let tokens = perS;
  let last = performance.now();
  let throttled = 0;
  return {
    name: `a key limited to ${perS} requests a second`,
    kills: [],
    throttled: () => throttled,
    rawRequest: (text) => {
      const now = performance.now();
      tokens = Math.min(perS, tokens + ((now - last) / 1000) * perS);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return undefined;
      }
      throttled++;
      let id: unknown = null;
      try {
        id = (JSON.parse(text) as { id?: unknown }).id ?? null;
      } catch {
        id = null;
      }
      return { status: 429, contentType: 'application/json', headers: { 'retry-after': '1' }, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32005, message: 'rate limit exceeded' } }) };
    },
  };
}
