// The fingerprint of an answer to a lookup of immutable data (by block or transaction hash): recorded in
// the corpus at sampling, compared under load, so a fast but wrong answer is caught. Key order and
// whitespace do not count, nor the letter case of a 20-byte address (EIP-55: a provider's backends may spell them
// differently, and the spec's formats accept either); every other value does: sha256 of the canonical JSON text. Pure, given the hash:
// node:crypto at sampling, k6/crypto under load (a hash written in JavaScript costs ~2 µs a character in k6).
import { METHOD_FACTS, METHODS, type RpcMethod } from '../../core/methods.ts';
import { ADDRESS } from '../../core/invariants/compare.ts';

/** Lookups whose answer cannot change once sampled (the key is a hash, not a height a reorg can move). */
export const IMMUTABLE_LOOKUPS: readonly RpcMethod[] = METHODS.filter((m) => METHOD_FACTS[m].immutable);

export function answerDigest(value: unknown, sha256Hex: (text: string) => string): string {
  return sha256Hex(canonical(value));
}

/** Deeper than any answer of the eight methods (a block's transactions' access lists' storage keys: 5 levels). Walking a
 * body nested past it would cost time quadratic in its depth (Sobek took 45 s for 100,000 levels) or the whole stack (V8
 * throws): an endpoint's answer must not hang or crash the generator. */
const MAX_DEPTH = 64;
/** What a value nested past MAX_DEPTH digests as: no JSON text holds a raw NUL, so it is no real answer's digest. */
const TOO_DEEP = '\u0000nested too deep';

function canonical(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined) // as JSON.stringify: the plan digested in Node must match the one compiled into k6
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(typeof value === 'string' && ADDRESS.test(value) ? value.toLowerCase() : value) ?? 'null';
}
