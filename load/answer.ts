// The fingerprint of an answer to a lookup of immutable data (by block or transaction hash): recorded in
// the corpus at sampling, compared under load, so a fast but wrong answer is caught. Key order and
// whitespace do not count; every value does. Pure: k6 and Node must compute the same digest.
import type { RpcMethod } from './methods.ts';

/** Lookups whose answer cannot change once sampled (the key is a hash, not a height a reorg can move). */
export const IMMUTABLE_LOOKUPS: readonly RpcMethod[] = ['eth_getBlockByHash', 'eth_getUncleByBlockHashAndIndex', 'eth_getTransactionByHash', 'eth_getTransactionReceipt'];

export function answerDigest(value: unknown): string {
  return hash53(canonical(value)).toString(36);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined) // as JSON.stringify: the plan digested in Node must match the one compiled into k6
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** cyrb53: a fast 53-bit string hash; collisions do not matter here, only that a changed answer changes it. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
