// logsBloom (yellow paper, section 4.3.1): a 2048-bit filter; each log sets three bits for its address
// and three for each topic, taken from keccak256 of the value. A block's bloom is the OR of its receipts'.
import * as Bytes from 'ox/Bytes';
import * as Hash from 'ox/Hash';
import * as Hex from 'ox/Hex';
import { bytes, type Json } from './encoding.ts';

const SIZE = 256;

function add(bloom: Uint8Array, value: Hex.Hex): void {
  const h = Hash.keccak256(value, { as: 'Bytes' });
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bloom[SIZE - 1 - (bit >> 3)]! |= 1 << (bit & 7);
  }
}

/** The bloom of a list of logs (address and topics of each), as 256-byte hex. */
export function logsBloom(logs: Json[]): Hex.Hex {
  const bloom = new Uint8Array(SIZE);
  logs.forEach((log, i) => {
    add(bloom, bytes(log, 'address', `/logs/${i}`, 20));
    const topics = log['topics'];
    if (!Array.isArray(topics)) throw new Error(`log ${i} has no topics array`);
    for (const topic of topics as unknown[]) add(bloom, bytes({ topic }, 'topic', `/logs/${i}/topics`, 32));
  });
  return Hex.fromBytes(bloom);
}

/** The OR of several blooms. */
export function orBlooms(blooms: Hex.Hex[]): Hex.Hex {
  const out = new Uint8Array(SIZE);
  for (const b of blooms) {
    const bs = Bytes.fromHex(b);
    for (let i = 0; i < SIZE; i++) out[i]! |= bs[i] ?? 0;
  }
  return Hex.fromBytes(out);
}
