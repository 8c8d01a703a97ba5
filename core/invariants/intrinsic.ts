// The gas a transaction pays before any code runs (yellow paper G_transaction and friends, EIP-2028
// calldata, EIP-2930 access lists, EIP-3860 init code from Shanghai, EIP-7702 authorizations) and the
// EIP-7623 calldata floor from Prague. A receipt's gasUsed above both means code ran; an estimate below
// the least gas a transaction can be charged cannot be enough.
import type { Json } from './encoding.ts';
import { type Fork, reached } from './forks.ts';

const TX = 21_000n;
const CREATE = 32_000n;
const ZERO_BYTE = 4n;
const NONZERO_BYTE = 16n;
const INITCODE_WORD = 2n;
const ACCESS_ADDRESS = 2_400n;
const ACCESS_KEY = 1_900n;
const AUTHORIZATION = 25_000n;
const FLOOR_PER_TOKEN = 10n;

function dataOf(tx: Json): string {
  const d = tx['input'] ?? tx['data'];
  return typeof d === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(d) ? d.slice(2) : '';
}

/** EIP-7623 tokens: one per zero byte, four per non-zero byte. */
function calldataTokens(hex: string): { zero: bigint; nonzero: bigint } {
  let zero = 0n;
  for (let i = 0; i < hex.length; i += 2) if (hex.slice(i, i + 2) === '00') zero++;
  return { zero, nonzero: BigInt(hex.length / 2) - zero };
}

/** Code deposit (yellow paper G_codedeposit): paid per byte of the code a creation returns. */
export const CODE_DEPOSIT_BYTE = 200n;

/**
 * Intrinsic gas of a transaction or call object (`input` or `data`, `to` null or absent for a creation) under a fork's
 * rules; by default the newest, which charge the most (EIP-3860's init-code words).
 */
export function intrinsicGas(tx: Json, fork: Fork = 'prague'): bigint {
  const hex = dataOf(tx);
  const { zero, nonzero } = calldataTokens(hex);
  let gas = TX + zero * ZERO_BYTE + nonzero * NONZERO_BYTE;
  if (tx['to'] === null || tx['to'] === undefined) gas += CREATE + (reached(fork, 'shanghai') ? INITCODE_WORD * BigInt(Math.ceil(hex.length / 64)) : 0n);
  if (Array.isArray(tx['accessList'])) {
    for (const item of tx['accessList'] as Json[]) gas += ACCESS_ADDRESS + ACCESS_KEY * BigInt(Array.isArray(item['storageKeys']) ? item['storageKeys'].length : 0);
  }
  if (Array.isArray(tx['authorizationList'])) gas += AUTHORIZATION * BigInt(tx['authorizationList'].length);
  return gas;
}

/** EIP-7623 (Prague): the least gas a transaction is charged for its calldata, whatever its execution used. */
export function calldataFloor(tx: Json): bigint {
  const { zero, nonzero } = calldataTokens(dataOf(tx));
  return TX + FLOOR_PER_TOKEN * (zero + 4n * nonzero);
}

/**
 * The least gas a transaction can be charged under a fork's rules: its intrinsic gas plus the `execution` gas its code
 * is known to use at the least, or from Prague EIP-7623's calldata floor, whichever is more. An estimate below it
 * cannot be enough.
 */
export function gasFloor(tx: Json, fork: Fork, execution = 0n): bigint {
  const standard = intrinsicGas(tx, fork) + execution;
  const floor = reached(fork, 'prague') ? calldataFloor(tx) : 0n;
  return standard > floor ? standard : floor;
}

/** Whether a receipt's gasUsed shows that code ran: above both the intrinsic gas and the calldata floor. */
export function ranCode(tx: Json, gasUsed: bigint): boolean {
  const a = intrinsicGas(tx);
  const b = calldataFloor(tx);
  return gasUsed > (a > b ? a : b);
}
