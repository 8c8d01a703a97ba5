// A block's `size`: the byte length of the block as the chain encodes it, rlp([header, transactions,
// uncles]) with the withdrawals list appended from Shanghai on (geth's types.Block, empty list included).
// A legacy transaction is itself an RLP list; a typed one is the byte string type || payload (EIP-2718).
// Blob sidecars travel in the network wrapper only, so they are not counted. Pure.
import type { Hex } from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import { EncodingError, type Json } from './encoding.ts';
import { headerItems } from './header.ts';
import { signedEnvelope } from './tx.ts';
import { withdrawalEncoding } from './withdrawal.ts';

type Item = Hex | Item[];

/** The size a block object (with full transactions) must state, given the headers of its uncles in order. */
export function blockSize(block: Json, uncles: readonly Json[]): number {
  return sizes(block, uncles).size;
}

/**
 * The size, and the size the block would have if its typed transactions were counted bare, without the RLP string
 * header that wraps each (a known client deviation: hardhat's `size`): what lets a deviation be named exactly, not
 * guessed. One encoding of the block serves both.
 */
export function blockSizes(block: Json, uncles: readonly Json[]): { size: number; bare: number } {
  const { size, typedHeaderBytes, txListPayload } = sizes(block, uncles);
  const outerPayload = size - listHeaderLength(size);
  const bareTxPayload = txListPayload - typedHeaderBytes;
  const barePayload = outerPayload - (txListPayload + listHeaderLength(txListPayload)) + bareTxPayload + listHeaderLength(bareTxPayload);
  return { size, bare: barePayload + listHeaderLength(barePayload) };
}

/** The length of an RLP header for a payload of n bytes (list or long string). */
function listHeaderLength(n: number): number {
  return n < 56 ? 1 : 1 + Math.ceil(n.toString(16).length / 2);
}

function sizes(block: Json, uncles: readonly Json[]): { size: number; typedHeaderBytes: number; txListPayload: number } {
  const txs = block['transactions'];
  if (!Array.isArray(txs)) throw new EncodingError('transactions is not an array', '/transactions');
  let typedHeaderBytes = 0;
  let txListPayload = 0;
  const items: Item[] = [
    headerItems(block),
    (txs as unknown[]).map((tx, i) => {
      if (typeof tx !== 'object' || tx === null) throw new EncodingError('a transaction is a hash, not an object: the size needs full transactions', `/transactions/${i}`);
      const envelope = signedEnvelope(tx as Json);
      const length = (envelope.length - 2) / 2;
      // A legacy envelope starts with its list prefix (>= 0xc0), a typed one with its type (< 0x80): a byte string.
      if (Number.parseInt(envelope.slice(2, 4), 16) >= 0xc0) {
        txListPayload += length;
        return Rlp.toHex(envelope) as Item;
      }
      typedHeaderBytes += listHeaderLength(length);
      txListPayload += length + listHeaderLength(length);
      return envelope;
    }),
    uncles.map((u) => headerItems(u)),
  ];
  const withdrawals = block['withdrawals'];
  if (Array.isArray(withdrawals)) items.push((withdrawals as Json[]).map((w, i) => Rlp.toHex(withdrawalEncoding(w, `/withdrawals/${i}`)) as Item));
  return { size: (Rlp.fromHex(items).length - 2) / 2, typedHeaderBytes, txListPayload };
}
