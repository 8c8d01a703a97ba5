// Reverts on any EVM chain without a deployed contract: estimating a contract creation whose init code
// REVERTs with a payload the harness chose (facts.md). The payload is the expected error.data.
import { decodeAbiParameters, encodeAbiParameters, concatHex, type Hex, size, toHex } from 'viem';

export const ERROR_STRING_SELECTOR = '0x08c379a0';

/** ABI encoding of Error(string): what `require(false, reason)` reverts with. */
export function errorStringPayload(reason: string): Hex {
  return concatHex([ERROR_STRING_SELECTOR, encodeAbiParameters([{ type: 'string' }], [reason])]);
}

/** The reason an Error(string) payload holds; undefined for any other payload (or bytes that only start like one). */
export function errorStringReason(data: string): string | undefined {
  if (!data.toLowerCase().startsWith(ERROR_STRING_SELECTOR)) return undefined;
  try {
    return decodeAbiParameters([{ type: 'string' }], `0x${data.slice(10)}`)[0];
  } catch {
    return undefined;
  }
}

/**
 * Init code that copies `payload` (appended after it) into memory and reverts with it:
 * PUSH2 len PUSH2 off PUSH1 0 CODECOPY PUSH2 len PUSH1 0 REVERT <payload>
 */
export function revertingInitCode(payload: Hex): Hex {
  const len = size(payload);
  const prefixLength = 15;
  const u16 = (n: number) => toHex(n, { size: 2 }).slice(2);
  return `0x61${u16(len)}61${u16(prefixLength)}600039${`61${u16(len)}`}6000fd${payload.slice(2)}` as Hex;
}

/** The reason and payload the conformance suite and the load corpus revert with. */
export const HARNESS_REVERT_REASON = 'rpc-certify: deliberate revert';
