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
  const txs = block['transactions'];
  if (!Array.isArray(txs)) throw new EncodingError('transactions is not an array', '/transactions');
  const items: Item[] = [
    headerItems(block),
    (txs as unknown[]).map((tx, i) => {
      if (typeof tx !== 'object' || tx === null) throw new EncodingError('a transaction is a hash, not an object: the size needs full transactions', `/transactions/${i}`);
      const envelope = signedEnvelope(tx as Json);
      // A legacy envelope starts with its list prefix (>= 0xc0), a typed one with its type (< 0x80).
      return Number.parseInt(envelope.slice(2, 4), 16) >= 0xc0 ? (Rlp.toHex(envelope) as Item) : envelope;
    }),
    uncles.map((u) => headerItems(u)),
  ];
  const withdrawals = block['withdrawals'];
  if (Array.isArray(withdrawals)) items.push((withdrawals as Json[]).map((w, i) => Rlp.toHex(withdrawalEncoding(w, `/withdrawals/${i}`)) as Item));
  return (Rlp.fromHex(items).length - 2) / 2;
}
