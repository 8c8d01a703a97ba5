// What an answer must hold whatever the chain did since sampling: a lookup by block number answers that
// block (and that index), whatever a reorg near the head put there; an estimate is at least its call's
// intrinsic gas and at most the gas cap. Recorded at sampling as a short text, checked under load on
// answers that are not the one sampling saw (a recognised answer needs no check). Pure: Node and k6.
import type { Json } from '../../core/invariants/encoding.ts';
import { intrinsicGas } from '../../core/invariants/intrinsic.ts';
import type { RpcMethod } from './methods.ts';

/** The spec's cap on an estimate, as conformance checks it (eth_estimateGas gas-cap): 10x the block gas limit. */
export const GAS_CAP_BLOCKS = 10n;
const NUMBER = /^0x[0-9a-fA-F]+$/;

/**
 * The bounds of a hit's answer, as text: `n:<block>[:<index>]` for a lookup by number (every item's blockNumber,
 * and transactionIndex, are the request's), `g:<least>:<most>` for an estimate. None where nothing is fixed.
 */
export function boundsOf(method: RpcMethod, params: readonly unknown[], gasCap: bigint | undefined): string | undefined {
  const [first, second] = params;
  if (method === 'eth_getTransactionByBlockNumberAndIndex' && typeof first === 'string' && NUMBER.test(first) && typeof second === 'string' && NUMBER.test(second)) {
    return `n:${first}:${second}`;
  }
  if (method === 'eth_getBlockReceipts' && typeof first === 'string' && NUMBER.test(first)) return `n:${first}`;
  if (method === 'eth_estimateGas' && first !== null && typeof first === 'object' && gasCap !== undefined) return `g:${intrinsicGas(first as Json)}:${gasCap}`;
  return undefined;
}

/** Why an answer breaks its bounds, or undefined when it keeps them. */
export function boundsFault(bounds: string, result: unknown): string | undefined {
  const [kind, a = '', b] = bounds.split(':');
  if (kind === 'g') {
    const gas = typeof result === 'string' && NUMBER.test(result) ? Number.parseInt(result, 16) : Number.NaN;
    if (!(gas >= Number(a))) return `an estimate of ${String(result)} is below the call's intrinsic gas ${a}`;
    return gas > Number(b) ? `an estimate of ${result as string} is above the gas cap ${b}` : undefined;
  }
  const block = Number.parseInt(a, 16);
  const items: unknown[] = Array.isArray(result) ? result : [result];
  for (const item of items) {
    const o = (item ?? {}) as { blockNumber?: unknown; transactionIndex?: unknown };
    if (typeof o.blockNumber !== 'string' || Number.parseInt(o.blockNumber, 16) !== block) return `an answer of block ${String(o.blockNumber)} to a lookup of block ${a}`;
    if (b !== undefined && (typeof o.transactionIndex !== 'string' || Number.parseInt(o.transactionIndex, 16) !== Number.parseInt(b, 16))) {
      return `the transaction at index ${String(o.transactionIndex)} answered for index ${b}`;
    }
  }
  return undefined;
}
