// Signs, once, the EIP-4844 blob transaction the embedded default mines, and writes it with its sidecar
// to fixtures/contracts/blob-tx.json. Computing KZG commitments takes ~20 s (the trusted setup), too slow
// for every devnet start; the signed transaction is deterministic, so the seed just submits it.
// Run: npx tsx scripts/make-blob-fixture.ts
import { writeFileSync } from 'node:fs';
import { loadKZG } from 'kzg-wasm';
import { bytesToHex, hexToBytes, parseGwei, stringToHex, toBlobs, type Hex } from 'viem';
import { BLOB_SENDER_INDEX, devAccount } from '../devnet/seed.ts';

const k = await loadKZG();
const kzg = {
  blobToKzgCommitment: (blob: Uint8Array) => hexToBytes(k.blobToKZGCommitment(bytesToHex(blob)) as Hex),
  computeBlobKzgProof: (blob: Uint8Array, commitment: Uint8Array) => hexToBytes(k.computeBlobKZGProof(bytesToHex(blob), bytesToHex(commitment)) as Hex),
};
const account = devAccount(BLOB_SENDER_INDEX);
// Nonce 0 of an account the seed uses for nothing else; fees far above what a fresh anvil asks.
const raw = await account.signTransaction({
  type: 'eip4844',
  chainId: 31337,
  nonce: 0,
  gas: 21_000n,
  maxFeePerGas: parseGwei('100'),
  maxPriorityFeePerGas: parseGwei('1'),
  maxFeePerBlobGas: parseGwei('100'),
  to: '0x000000000000000000000000000000000000b10b',
  blobs: toBlobs({ data: stringToHex('rpc-certify: a real blob for the conformance suite') }),
  kzg,
});
writeFileSync(new URL('../fixtures/contracts/blob-tx.json', import.meta.url), `${JSON.stringify({ from: account.address, raw }, null, 0)}\n`);
console.log(`blob transaction from ${account.address}: ${raw.length} hex chars`);
