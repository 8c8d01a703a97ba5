// A transaction object as served (JSON-RPC) back to the signed EIP-2718 envelope the chain committed to:
// hash = keccak256(envelope), sender = ecrecover over the signing payload. ox does the RLP and the
// signature maths; this file only maps the wire fields, type by type. ox's per-module entry points are
// used (not viem's, whose index pulls in a WebSocket transport) so that a k6 bundle can take this file.
import type { Address } from 'ox/Address';
import type { AccessList } from 'ox/AccessList';
import type { ListSigned } from 'ox/Authorization';
import * as Hash from 'ox/Hash';
import type { Hex } from 'ox/Hex';
import * as Secp256k1 from 'ox/Secp256k1';
import * as TxEnvelopeEip1559 from 'ox/TxEnvelopeEip1559';
import * as TxEnvelopeEip2930 from 'ox/TxEnvelopeEip2930';
import * as TxEnvelopeEip4844 from 'ox/TxEnvelopeEip4844';
import * as TxEnvelopeEip7702 from 'ox/TxEnvelopeEip7702';
import * as TxEnvelopeLegacy from 'ox/TxEnvelopeLegacy';
import { bigintOf, bytes, EncodingError, has, type Json } from './encoding.ts';

/** The types whose envelope is recomputed here (0x0 legacy, 0x1 EIP-2930, 0x2 EIP-1559, 0x3 EIP-4844, 0x4 EIP-7702). */
export const RECOMPUTABLE_TYPES = ['0x0', '0x1', '0x2', '0x3', '0x4'] as const;

/** Whether this harness re-encodes a type (absent: legacy): a transaction's hash, a block's roots and size. */
export const recomputable = (type: unknown): boolean => (RECOMPUTABLE_TYPES as readonly unknown[]).includes(type ?? '0x0');

export class UnsupportedTxType extends EncodingError {
  constructor(readonly type: string) {
    super(`transaction type ${type} is not one this harness can re-encode (an L2 type?)`, '/type');
  }
}

const num = (obj: Json, field: string, at = '') => Number(bigintOf(obj, field, at));
const address = (obj: Json, field: string, at = '') => bytes(obj, field, at, 20) as Address;
const optAddress = (obj: Json, field: string, at = '') => (obj[field] === null || obj[field] === undefined ? null : address(obj, field, at));

function accessList(tx: Json): AccessList {
  const list = tx['accessList'];
  if (!Array.isArray(list)) throw new EncodingError('accessList is not an array', '/accessList');
  return (list as Json[]).map((item, i) => ({
    address: address(item, 'address', `/accessList/${i}`),
    storageKeys: ((item['storageKeys'] ?? []) as unknown[]).map((k, j) => bytes({ k }, 'k', `/accessList/${i}/storageKeys/${j}`, 32)),
  }));
}

function authorizationList(tx: Json): ListSigned {
  const list = tx['authorizationList'];
  if (!Array.isArray(list)) throw new EncodingError('authorizationList is not an array', '/authorizationList');
  return (list as Json[]).map((a, i) => {
    const at = `/authorizationList/${i}`;
    return { address: address(a, 'address', at), chainId: num(a, 'chainId', at), nonce: bigintOf(a, 'nonce', at), yParity: num(a, 'yParity', at), r: bigintOf(a, 'r', at), s: bigintOf(a, 's', at) };
  });
}

/** The signature parity of a typed transaction: yParity, or v where a client sends only v. */
function yParity(tx: Json): number {
  const field = has(tx, 'yParity') ? 'yParity' : 'v';
  const p = bigintOf(tx, field);
  if (p > 1n) throw new EncodingError(`${field} of a typed transaction must be 0 or 1, got ${p}`, `/${field}`);
  return Number(p);
}

/** A legacy v: 27/28 before EIP-155, chainId * 2 + 35/36 after it. */
function legacyParity(v: bigint): { chainId?: number; yParity: number } {
  if (v === 27n || v === 28n) return { yParity: Number(v - 27n) };
  if (v >= 37n) return { chainId: Number((v - 35n) / 2n), yParity: Number((v - 35n) % 2n) };
  throw new EncodingError(`legacy v must be 27, 28 or chainId * 2 + 35/36, got ${v}`, '/v');
}

interface Envelope {
  /** The signed envelope: rlp(fields) for legacy, type byte || rlp(fields) for typed ones (no blob sidecar). */
  serialized: Hex;
  /** keccak256 of the unsigned form: what the sender signed. */
  payload: Hex;
  signature: { r: bigint; s: bigint; yParity: number };
}

function envelope(tx: Json): Envelope {
  const type = typeof tx['type'] === 'string' ? (tx['type'] as string) : '0x0';
  const common = { nonce: bigintOf(tx, 'nonce'), gas: bigintOf(tx, 'gas'), value: bigintOf(tx, 'value'), data: bytes(tx, 'input') };
  const rs = { r: bigintOf(tx, 'r'), s: bigintOf(tx, 's') };
  switch (type) {
    case '0x0': {
      const { chainId, yParity } = legacyParity(bigintOf(tx, 'v'));
      const to = optAddress(tx, 'to');
      const e = TxEnvelopeLegacy.from({ ...common, gasPrice: bigintOf(tx, 'gasPrice'), ...(to ? { to } : {}), ...(chainId ? { chainId } : {}) });
      const signature = { ...rs, yParity };
      return { serialized: TxEnvelopeLegacy.serialize(e, { signature }), payload: TxEnvelopeLegacy.getSignPayload(e), signature };
    }
    case '0x1': {
      const to = optAddress(tx, 'to');
      const e = TxEnvelopeEip2930.from({ ...common, chainId: num(tx, 'chainId'), gasPrice: bigintOf(tx, 'gasPrice'), accessList: accessList(tx), ...(to ? { to } : {}) });
      const signature = { ...rs, yParity: yParity(tx) };
      return { serialized: TxEnvelopeEip2930.serialize(e, { signature }), payload: TxEnvelopeEip2930.getSignPayload(e), signature };
    }
    case '0x2': {
      const to = optAddress(tx, 'to');
      const e = TxEnvelopeEip1559.from({ ...common, chainId: num(tx, 'chainId'), maxFeePerGas: bigintOf(tx, 'maxFeePerGas'), maxPriorityFeePerGas: bigintOf(tx, 'maxPriorityFeePerGas'), accessList: accessList(tx), ...(to ? { to } : {}) });
      const signature = { ...rs, yParity: yParity(tx) };
      return { serialized: TxEnvelopeEip1559.serialize(e, { signature }), payload: TxEnvelopeEip1559.getSignPayload(e), signature };
    }
    case '0x3': {
      const hashes = tx['blobVersionedHashes'];
      if (!Array.isArray(hashes)) throw new EncodingError('blobVersionedHashes is not an array', '/blobVersionedHashes');
      const e = TxEnvelopeEip4844.from({
        ...common,
        chainId: num(tx, 'chainId'),
        to: address(tx, 'to'),
        maxFeePerGas: bigintOf(tx, 'maxFeePerGas'),
        maxPriorityFeePerGas: bigintOf(tx, 'maxPriorityFeePerGas'),
        maxFeePerBlobGas: bigintOf(tx, 'maxFeePerBlobGas'),
        accessList: accessList(tx),
        blobVersionedHashes: (hashes as unknown[]).map((h, i) => bytes({ h }, 'h', `/blobVersionedHashes/${i}`, 32)),
      });
      const signature = { ...rs, yParity: yParity(tx) };
      return { serialized: TxEnvelopeEip4844.serialize(e, { signature }), payload: TxEnvelopeEip4844.getSignPayload(e), signature };
    }
    case '0x4': {
      const e = TxEnvelopeEip7702.from({
        ...common,
        chainId: num(tx, 'chainId'),
        to: address(tx, 'to'),
        maxFeePerGas: bigintOf(tx, 'maxFeePerGas'),
        maxPriorityFeePerGas: bigintOf(tx, 'maxPriorityFeePerGas'),
        accessList: accessList(tx),
        authorizationList: authorizationList(tx),
      });
      const signature = { ...rs, yParity: yParity(tx) };
      return { serialized: TxEnvelopeEip7702.serialize(e, { signature }), payload: TxEnvelopeEip7702.getSignPayload(e), signature };
    }
    default:
      throw new UnsupportedTxType(type);
  }
}

/** Runs an ox encoding step; its refusal (a field out of range, an invalid chain id) means the fields cannot be what was signed. */
function encoded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof EncodingError) throw err;
    throw new EncodingError(`the fields cannot be encoded as a transaction: ${(err as Error).message.split('\n')[0]}`, '');
  }
}

/** The signed envelope: rlp(fields) for legacy, type byte || rlp(fields) for typed ones (no blob sidecar). */
export function signedEnvelope(tx: Json): Hex {
  return encoded(() => envelope(tx).serialized);
}

/** keccak256 of the signed envelope: what `hash` must be. */
export function txHash(tx: Json): Hex {
  return Hash.keccak256(signedEnvelope(tx));
}

/** The address the signature recovers to: what `from` must be (ecrecover over the unsigned payload's hash). */
export function recoverSender(tx: Json): Address {
  const { payload, signature } = encoded(() => envelope(tx));
  try {
    return Secp256k1.recoverAddress({ payload, signature });
  } catch (err) {
    throw new EncodingError(`the signature recovers to no address: ${(err as Error).message.split('\n')[0]}`, '/r');
  }
}

/** For a legacy transaction: the chain id its v encodes (EIP-155), or undefined before EIP-155. */
export function legacyChainId(tx: Json): bigint | undefined {
  const v = bigintOf(tx, 'v');
  return v >= 35n ? (v - 35n) / 2n : undefined;
}
