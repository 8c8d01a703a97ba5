// EIP-4895 withdrawals as the header commits to them: each one rlp([index, validatorIndex, address,
// amount in Gwei]), withdrawalsRoot the ordered trie of those (trie.ts). Pure.
import type { Hex } from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import { bytes, type Json, quantity } from './encoding.ts';

export function withdrawalEncoding(w: Json, at = ''): Hex {
  return Rlp.fromHex([quantity(w, 'index', at), quantity(w, 'validatorIndex', at), bytes(w, 'address', at, 20), quantity(w, 'amount', at)]);
}
