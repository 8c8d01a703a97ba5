// Field-for-field comparison of two views of the same object (a transaction or receipt served by two
// methods). Addresses may differ only in EIP-55 case; everything else must be identical.
import type { Json } from './encoding.ts';

/** A 20-byte value (an address), whose letter case (EIP-55) carries no meaning: compared case-blind, here and in the load's answer digest. */
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function canonical(v: unknown): string | undefined {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'string' && ADDRESS.test(x) ? x.toLowerCase() : x));
}

/** The fields (union of both key sets, sorted) whose values differ; a field absent on one side and null/undefined on the other differs. */
export function fieldDiffs(actual: Json, expected: Json): string[] {
  const keys = [...new Set([...Object.keys(actual), ...Object.keys(expected)])].sort();
  return keys.filter((k) => (k in actual) !== (k in expected) || canonical(actual[k]) !== canonical(expected[k]));
}

export function sameAddress(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
}
