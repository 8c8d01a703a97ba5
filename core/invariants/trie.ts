// The root of an ordered Merkle-Patricia trie, as transactionsRoot and receiptsRoot are built:
// key rlp(index), value the item's encoding. The trie itself is @ethereumjs/mpt's. Unlike the other
// files here, a platform-neutral bundle of this one needs `debug` (imported by @ethereumjs/mpt) resolved
// to its browser build: its node build requires tty and util.
import { createMPT } from '@ethereumjs/mpt';
import * as Bytes from 'ox/Bytes';
import * as Hex from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import { quantityHex } from './encoding.ts';

/** keccak256(rlp('')): the root of a trie with nothing in it (an empty block's transactionsRoot and receiptsRoot). */
export const EMPTY_TRIE_ROOT: Hex.Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

export async function orderedTrieRoot(values: Hex.Hex[]): Promise<Hex.Hex> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++) await trie.put(Rlp.fromHex(quantityHex(BigInt(i)), { as: 'Bytes' }), Bytes.fromHex(values[i]!));
  return Hex.fromBytes(trie.root());
}
