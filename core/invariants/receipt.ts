// The consensus encoding of a receipt (EIP-2718 / EIP-658): rlp([status or post-state root,
// cumulativeGasUsed, logsBloom, logs]), prefixed by the transaction type for typed transactions.
// Logs are rlp([address, [topics], data]). Only these fields are committed to by receiptsRoot.
import * as Hex from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import { bytes, EncodingError, has, type Json, quantity } from './encoding.ts';

export function receiptEnvelope(receipt: Json, at = '', opts: { failedStatusAsByte?: boolean } = {}): Hex.Hex {
  let first: Hex.Hex;
  if (has(receipt, 'root')) first = bytes(receipt, 'root', at, 32);
  else if (receipt['status'] === '0x1') first = '0x01';
  // failedStatusAsByte: status 0 as the byte 0x00, not RLP's empty string (a known client deviation: ganache).
  else if (receipt['status'] === '0x0') first = opts.failedStatusAsByte ? '0x00' : '0x';
  else throw new EncodingError(`status must be 0x0 or 0x1 (or a root is given): ${JSON.stringify(receipt['status'])}`, `${at}/status`);
  const logs = receipt['logs'];
  if (!Array.isArray(logs)) throw new EncodingError('logs is not an array', `${at}/logs`);
  const body = Rlp.fromHex([
    first,
    quantity(receipt, 'cumulativeGasUsed', at),
    bytes(receipt, 'logsBloom', at, 256),
    (logs as Json[]).map((log, i) => {
      const topics = log['topics'];
      if (!Array.isArray(topics)) throw new EncodingError('topics is not an array', `${at}/logs/${i}/topics`);
      return [bytes(log, 'address', `${at}/logs/${i}`, 20), (topics as unknown[]).map((topic, j) => bytes({ topic }, 'topic', `${at}/logs/${i}/topics/${j}`, 32)), bytes(log, 'data', `${at}/logs/${i}`)];
    }),
  ]);
  const type = typeof receipt['type'] === 'string' ? (receipt['type'] as string) : '0x0';
  if (!/^0x[0-9a-f]{1,2}$/.test(type)) throw new EncodingError(`type is not a byte: ${type}`, `${at}/type`);
  const typeByte = BigInt(type);
  if (typeByte === 0n) return body;
  if (typeByte >= 0x80n) throw new EncodingError(`type ${type} is not an EIP-2718 type (0x00-0x7f)`, `${at}/type`);
  return Hex.concat(`0x${typeByte.toString(16).padStart(2, '0')}`, body);
}
