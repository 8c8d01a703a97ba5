// EIP-4844's two forms of a blob transaction: the canonical one, 0x03 || rlp(body), which its hash and the
// transaction trie commit to, and the network form a node gossips, 0x03 || rlp([body, blobs, commitments,
// proofs]). anvil puts the network form into its trie (and answers it to eth_getRawTransactionByHash): an
// --expect entry may excuse that cause only when the block's root is shown to be exactly that trie.
import * as Hash from 'ox/Hash';
import type * as Hex from 'ox/Hex';
import * as Rlp from 'ox/Rlp';

/**
 * Why `raw` is not the network form of the blob transaction whose canonical envelope is `envelope`, or undefined
 * when it is: its body is the envelope's, and it carries one blob, commitment and proof per versioned hash, each
 * commitment hashing (sha256, version byte 0x01) to its versioned hash. (The KZG proofs are not verified.)
 */
export function notNetworkForm(raw: unknown, envelope: Hex.Hex, versionedHashes: unknown): string | undefined {
  if (typeof raw !== 'string' || !/^0x03([0-9a-f]{2})+$/i.test(raw)) return 'not hex starting with type byte 0x03';
  let items: ReturnType<typeof Rlp.toHex>;
  try {
    items = Rlp.toHex(`0x${raw.slice(4)}`);
  } catch (err) {
    return `not RLP after the type byte (${(err as Error).message.split('\n')[0]})`;
  }
  if (!Array.isArray(items) || items.length !== 4 || !items.slice(1).every(Array.isArray)) return 'not the list [body, blobs, commitments, proofs]';
  const [body, blobs, commitments, proofs] = items as [Parameters<typeof Rlp.fromHex>[0], Hex.Hex[], Hex.Hex[], Hex.Hex[]];
  if (`0x03${Rlp.fromHex(body).slice(2)}`.toLowerCase() !== envelope.toLowerCase()) return 'its body is not the transaction\'s signed envelope';
  const hashes = Array.isArray(versionedHashes) ? versionedHashes.map((h) => String(h).toLowerCase()) : [];
  if (hashes.length === 0 || blobs.length !== hashes.length || commitments.length !== hashes.length || proofs.length !== hashes.length) {
    return `${blobs.length} blob(s), ${commitments.length} commitment(s) and ${proofs.length} proof(s) for ${hashes.length} versioned hash(es)`;
  }
  const wrong = commitments.findIndex((c, i) => typeof c !== 'string' || `0x01${Hash.sha256(c).slice(4)}` !== hashes[i]);
  return wrong < 0 ? undefined : `commitment ${wrong} does not hash to versioned hash ${wrong}`;
}
