// Reverts on any EVM chain without a deployed contract: estimating a contract creation whose init code
// REVERTs with a payload the harness chose (facts.md). The payload is the expected error.data.
import { decodeAbiParameters, encodeAbiParameters, concatHex, type Hex, keccak256, size, slice, toHex } from 'viem';

export const ERROR_STRING_SELECTOR = '0x08c379a0';
export const PANIC_SELECTOR = '0x4e487b71';

/** geth's abi.UnpackRevert wording for each Panic code (accounts/abi/abi.go), the message's text after "execution reverted: ". */
export const PANIC_REASONS: Readonly<Record<number, string>> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** ABI encoding of Panic(uint256): what Solidity reverts with on an assert, an overflow, a division by zero. */
export function panicPayload(code: number): Hex {
  return concatHex([PANIC_SELECTOR, encodeAbiParameters([{ type: 'uint256' }], [BigInt(code)])]);
}

/** A custom error's payload (`error RpcCertifyDenied(uint256 code)` with 403): its selector and ABI-encoded arguments. */
export function customErrorPayload(): Hex {
  return concatHex([slice(keccak256(toHex('RpcCertifyDenied(uint256)')), 0, 4), encodeAbiParameters([{ type: 'uint256' }], [403n])]);
}

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

/** geth's text for a Panic payload ("unknown panic code: 0x…" for a code it does not name); undefined for any other payload. */
function panicReason(data: string): string | undefined {
  if (!data.toLowerCase().startsWith(PANIC_SELECTOR)) return undefined;
  try {
    const [code] = decodeAbiParameters([{ type: 'uint256' }], `0x${data.slice(10)}`);
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  } catch {
    return undefined;
  }
}

/** The message geth gives a REVERT with this payload: the decoded Error(string) or Panic text, else plain "execution reverted". */
export function gethRevertMessage(data: string): string {
  const reason = errorStringReason(data) ?? panicReason(data);
  return reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`;
}

/**
 * The messages §4.1 rule 3 and §7 accept for a REVERT with this payload, a closed set: "execution reverted: <reason>"
 * for Error(string), whose reason is the one to decode; for a Panic plain "execution reverted" or geth's text for its
 * code; for any other payload (a custom error, none) plain "execution reverted" only.
 */
export function acceptedRevertMessages(data: string): string[] {
  if (errorStringReason(data) !== undefined) return [gethRevertMessage(data)];
  return [...new Set(['execution reverted', gethRevertMessage(data)])];
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
