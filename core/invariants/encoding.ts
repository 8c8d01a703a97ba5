// Wire values (JSON-RPC hex strings) as the byte strings the protocol encodes. Shared by the invariant
// recomputes; no node: imports, so the k6 bundle can use them too.
import type { Hex } from 'ox/Hex';

/** A failed invariant: where in the judged value, what is wrong, and the two sides. */
export interface Violation {
  /** JSON pointer relative to the judged value (e.g. `/3/cumulativeGasUsed`). */
  pointer: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

/** A value that cannot be encoded as the protocol needs it (a missing field, not hex): the recompute is impossible. */
export class EncodingError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;

const HEX = /^0x[0-9a-fA-F]*$/;

/** A quantity as RLP wants it: minimal big-endian bytes, zero as the empty string. */
export function quantity(obj: Json, field: string, at = ''): Hex {
  const v = obj[field];
  if (typeof v !== 'string' || !HEX.test(v) || v.length < 3) throw new EncodingError(`${field} is not a hex quantity: ${JSON.stringify(v)}`, `${at}/${field}`);
  return quantityHex(BigInt(v));
}

export function quantityHex(n: bigint): Hex {
  if (n === 0n) return '0x';
  const s = n.toString(16);
  return `0x${s.length % 2 ? '0' : ''}${s}`;
}

/** A byte string of the given length (or any length), lower-cased. */
export function bytes(obj: Json, field: string, at = '', size?: number): Hex {
  const v = obj[field];
  if (typeof v !== 'string' || !HEX.test(v) || v.length % 2 !== 0) throw new EncodingError(`${field} is not an even-length hex byte string: ${JSON.stringify(v)}`, `${at}/${field}`);
  if (size !== undefined && v.length !== 2 + 2 * size) throw new EncodingError(`${field} must be ${size} bytes, has ${(v.length - 2) / 2}`, `${at}/${field}`);
  return v.toLowerCase() as Hex;
}

/** Present and not null. */
export function has(obj: Json, field: string): boolean {
  return obj[field] !== undefined && obj[field] !== null;
}

export function bigintOf(obj: Json, field: string, at = ''): bigint {
  const h = quantity(obj, field, at);
  return h === '0x' ? 0n : BigInt(h);
}
