// Block hash = keccak256(rlp(header)), recomputed from the fields a block (or uncle) object carries.
// The field list grows by fork; which fork a header belongs to is read off the fields it has.
import * as Hash from 'ox/Hash';
import type { Hex } from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import { bytes, EncodingError, has, type Json, quantity } from './encoding.ts';
import { FORK_FIELDS, type Fork } from './forks.ts';

export { FORKS, type Fork } from './forks.ts';

/** keccak256(rlp([])): the sha3Uncles of a block with no uncles. */
export const EMPTY_UNCLES_HASH: Hex = Hash.keccak256(Rlp.fromHex([]));

/** The newest fork whose header fields are present; a later fork's field without an earlier one's is an error. */
export function headerFork(header: Json): Fork {
  let fork: Fork = 'frontier';
  let gap: string | undefined;
  for (const step of FORK_FIELDS) {
    const present = step.fields.filter((f) => has(header, f));
    if (present.length === 0) {
      gap ??= step.fields[0];
      continue;
    }
    if (present.length !== step.fields.length) {
      const missing = step.fields.find((f) => !has(header, f))!;
      throw new EncodingError(`header has ${present.join(', ')} but not ${missing} (${step.fork} adds them together)`, `/${missing}`);
    }
    if (gap) throw new EncodingError(`header has ${step.fields[0]} (${step.fork}) but not ${gap}, which an earlier fork added`, `/${gap}`);
    fork = step.fork;
  }
  return fork;
}

/** The RLP items of a header, in order, for the fork its fields say. */
export function headerItems(header: Json): Hex[] {
  const fork = headerFork(header);
  const items: Hex[] = [
    bytes(header, 'parentHash', '', 32),
    bytes(header, 'sha3Uncles', '', 32),
    bytes(header, 'miner', '', 20),
    bytes(header, 'stateRoot', '', 32),
    bytes(header, 'transactionsRoot', '', 32),
    bytes(header, 'receiptsRoot', '', 32),
    bytes(header, 'logsBloom', '', 256),
    quantity(header, 'difficulty'),
    quantity(header, 'number'),
    quantity(header, 'gasLimit'),
    quantity(header, 'gasUsed'),
    quantity(header, 'timestamp'),
    bytes(header, 'extraData'),
    bytes(header, 'mixHash', '', 32),
    bytes(header, 'nonce', '', 8),
  ];
  for (const step of FORK_FIELDS) {
    if (fork === 'frontier') break;
    for (const f of step.fields) items.push(f.endsWith('Root') || f.endsWith('Hash') ? bytes(header, f, '', 32) : quantity(header, f));
    if (step.fork === fork) break;
  }
  return items;
}

/** keccak256(rlp(header)): what the block's `hash` must be. Throws EncodingError when a field cannot be encoded. */
export function headerHash(header: Json): Hex {
  return Hash.keccak256(Rlp.fromHex(headerItems(header)));
}
