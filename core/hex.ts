// Quantity helpers: the wire uses 0x-hex quantities; comparisons need numbers that do not overflow.

export function q(value: string | null | undefined): bigint | undefined {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) return undefined;
  return BigInt(value);
}

export function toQuantity(n: bigint | number): string {
  return `0x${n.toString(16)}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
