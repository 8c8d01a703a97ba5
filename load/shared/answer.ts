// The fingerprint of an answer to a lookup of immutable data (by block or transaction hash): recorded in
// the corpus at sampling, compared under load, so a fast but wrong answer is caught. Key order and
// whitespace do not count; every value does: sha256 of the canonical JSON text. Pure, given the hash:
// node:crypto at sampling, k6/crypto under load (a hash written in JavaScript costs ~2 µs a character in k6).
import { METHOD_FACTS, METHODS, type RpcMethod } from '../../core/methods.ts';

/** Lookups whose answer cannot change once sampled (the key is a hash, not a height a reorg can move). */
export const IMMUTABLE_LOOKUPS: readonly RpcMethod[] = METHODS.filter((m) => METHOD_FACTS[m].immutable);

export function answerDigest(value: unknown, sha256Hex: (text: string) => string): string {
  return sha256Hex(canonical(value));
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
