// What a block's receipts must satisfy among themselves and against the block (facts.md, "Protocol
// invariants"): gas accounting, log indexes, blooms. Each function returns every violation found, with a
// pointer into the receipts array (or the block), so a check can report the first and count the rest.
import type { Hex } from 'ox/Hex';
import { logsBloom, orBlooms } from './bloom.ts';
import { bigintOf, bytes, EncodingError, type Json, type Violation } from './encoding.ts';
import { toQuantity } from '../hex.ts';

/** cumulativeGasUsed non-decreasing, each gasUsed the difference of cumulatives, the last the block's gasUsed. */
export function gasAccounting(receipts: Json[], blockGasUsed: string): Violation[] {
  const out: Violation[] = [];
  let previous = 0n;
  receipts.forEach((r, i) => {
    const cumulative = bigintOf(r, 'cumulativeGasUsed', `/${i}`);
    const used = bigintOf(r, 'gasUsed', `/${i}`);
    if (cumulative < previous) out.push({ pointer: `/${i}/cumulativeGasUsed`, message: `cumulativeGasUsed decreases at receipt ${i}`, expected: `>= ${toQuantity(previous)}`, actual: r['cumulativeGasUsed'] });
    else if (used !== cumulative - previous) out.push({ pointer: `/${i}/gasUsed`, message: `gasUsed of receipt ${i} must be its cumulativeGasUsed minus the previous one`, expected: toQuantity(cumulative - previous), actual: r['gasUsed'] });
    previous = cumulative;
  });
  const last = receipts.length === 0 ? 0n : previous;
  if (last !== bigintOf({ gasUsed: blockGasUsed }, 'gasUsed', '/block')) out.push({ pointer: receipts.length ? `/${receipts.length - 1}/cumulativeGasUsed` : '', message: 'the last cumulativeGasUsed must equal the block\'s gasUsed', expected: blockGasUsed, actual: toQuantity(last) });
  return out;
}

/** logIndex counts the block's logs from 0, contiguously, across all its receipts. */
export function logIndexes(receipts: Json[]): Violation[] {
  const out: Violation[] = [];
  let next = 0n;
  receipts.forEach((r, i) => {
    const logs = r['logs'];
    if (!Array.isArray(logs)) throw new EncodingError('logs is not an array', `/${i}/logs`);
    (logs as Json[]).forEach((log, j) => {
      const index = bigintOf(log, 'logIndex', `/${i}/logs/${j}`);
      // Numbering each receipt's logs from 0 is a known client bug: said so, for an --expect entry to name exactly.
      const how = index === BigInt(j) ? ': it is the log\'s position in its receipt' : '';
      if (index !== next) out.push({ pointer: `/${i}/logs/${j}/logIndex`, message: `logIndex must count the block's logs from 0 (log ${j} of receipt ${i})${how}`, expected: toQuantity(next), actual: log['logIndex'] });
      next += 1n;
    });
  });
  return out;
}

/** Each receipt's logsBloom is the bloom of its own logs. */
export function receiptBlooms(receipts: Json[]): Violation[] {
  const out: Violation[] = [];
  receipts.forEach((r, i) => {
    const expected = logsBloom((r['logs'] ?? []) as Json[]);
    const actual = bytes(r, 'logsBloom', `/${i}`, 256);
    if (actual !== expected) out.push({ pointer: `/${i}/logsBloom`, message: `logsBloom of receipt ${i} is not the bloom of its ${(r['logs'] as unknown[]).length} log(s)`, expected, actual });
  });
  return out;
}

/** The block's logsBloom: the OR of its receipts' blooms, each recomputed from the logs. */
export function blockBloom(receipts: Json[]): Hex {
  return orBlooms(receipts.map((r) => logsBloom((r['logs'] ?? []) as Json[])));
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** One receipt per transaction, in order, each naming its transaction and carrying its type, from and to. */
export function receiptsAgainstTxs(receipts: Json[], txs: Json[]): Violation[] {
  const out: Violation[] = [];
  if (receipts.length !== txs.length) out.push({ pointer: '', message: `${receipts.length} receipt(s) for ${txs.length} transaction(s)`, expected: txs.length, actual: receipts.length });
  receipts.forEach((r, i) => {
    const tx = txs[i];
    if (!tx) return;
    const pairs: Array<[string, string]> = [['transactionHash', 'hash'], ['type', 'type'], ['from', 'from'], ['to', 'to']];
    for (const [field, txField] of pairs) {
      const expected = txField === 'type' ? (tx['type'] ?? '0x0') : tx[txField];
      if (lower(r[field]) !== lower(expected)) out.push({ pointer: `/${i}/${field}`, message: `receipt ${i}'s ${field} is not its transaction's ${txField}`, expected, actual: r[field] });
    }
    if ((r['to'] === null) !== (r['contractAddress'] !== null && r['contractAddress'] !== undefined)) {
      out.push({ pointer: `/${i}/contractAddress`, message: `receipt ${i} must carry a contractAddress exactly when to is null`, actual: { to: r['to'], contractAddress: r['contractAddress'] } });
    }
  });
  return out;
}

/** EIP-4844: the blob gas a blob transaction uses, per versioned hash. */
export const GAS_PER_BLOB = 131072n;

/**
 * Each receipt names the block it is in and its place there (blockHash, blockNumber, transactionIndex), and
 * so does each of its logs, with its transaction's hash; a blob transaction's blobGasUsed, where served, is
 * GAS_PER_BLOB per versioned hash. What a receipt fetched on its own must say to be the one of that block.
 */
export function receiptPlaces(receipts: Json[], txs: Json[], block: Json): Violation[] {
  const out: Violation[] = [];
  receipts.forEach((r, i) => {
    const place: Json = { blockHash: block['hash'], blockNumber: block['number'], transactionIndex: toQuantity(i), transactionHash: txs[i]?.['hash'] };
    for (const field of ['blockHash', 'blockNumber', 'transactionIndex'] as const) {
      if (lower(r[field]) !== lower(place[field])) out.push({ pointer: `/${i}/${field}`, message: `receipt ${i}'s ${field} is not ${field === 'transactionIndex' ? 'its position in' : 'the one of'} its block`, expected: place[field], actual: r[field] ?? '(absent)' });
    }
    const logs = Array.isArray(r['logs']) ? (r['logs'] as Json[]) : [];
    logs.forEach((log, j) => {
      const wrong = (['blockHash', 'blockNumber', 'transactionIndex', 'transactionHash'] as const).filter((f) => lower(log[f]) !== lower(place[f]));
      if (wrong.length) out.push({ pointer: `/${i}/logs/${j}/${wrong[0]}`, message: `log ${j} of receipt ${i} does not point back at its transaction and block: ${wrong.join(', ')}`, expected: place[wrong[0]!], actual: log[wrong[0]!] ?? '(absent)' });
    });
    const blobs = txs[i]?.['blobVersionedHashes'];
    if (Array.isArray(blobs) && r['blobGasUsed'] !== undefined) {
      const expected = toQuantity(GAS_PER_BLOB * BigInt(blobs.length));
      if (r['blobGasUsed'] !== expected) out.push({ pointer: `/${i}/blobGasUsed`, message: `receipt ${i}'s blobGasUsed must be ${GAS_PER_BLOB} per blob of its transaction (${blobs.length})`, expected, actual: r['blobGasUsed'] });
    }
  });
  return out;
}

/** effectiveGasPrice: gasPrice for 0x0/0x1, min(maxFeePerGas, baseFee + maxPriorityFeePerGas) from 0x2 on. */
export function effectiveGasPrices(receipts: Json[], txs: Json[], block: Json): Violation[] {
  const out: Violation[] = [];
  receipts.forEach((r, i) => {
    const tx = txs[i];
    if (!tx) return;
    const type = typeof tx['type'] === 'string' && /^0x[0-9a-f]{1,2}$/.test(tx['type']) ? BigInt(tx['type']) : 0n;
    // A type beyond EIP-7702's (an L2's deposit, say) prices gas by its own rules: not judged here.
    if (type > 4n) return;
    let expected: bigint;
    if (type <= 1n) expected = bigintOf(tx, 'gasPrice', `/transactions/${i}`);
    else {
      const maxFee = bigintOf(tx, 'maxFeePerGas', `/transactions/${i}`);
      const tip = bigintOf(tx, 'maxPriorityFeePerGas', `/transactions/${i}`);
      const base = bigintOf(block, 'baseFeePerGas', '/block');
      expected = maxFee < base + tip ? maxFee : base + tip;
    }
    const actual = bigintOf(r, 'effectiveGasPrice', `/${i}`);
    if (actual !== expected) {
      out.push({ pointer: `/${i}/effectiveGasPrice`, message: `receipt ${i} (type ${toQuantity(type)}): effectiveGasPrice must be ${type <= 1n ? 'its gasPrice' : 'min(maxFeePerGas, baseFeePerGas + maxPriorityFeePerGas)'}`, expected: toQuantity(expected), actual: r['effectiveGasPrice'] });
    }
  });
  return out;
}

/** Logs of a canonical block's receipts are not removed (a reorg's removal flag never shows there). */
export function removedLogs(receipts: Json[]): Violation[] {
  const out: Violation[] = [];
  receipts.forEach((r, i) => {
    const logs = Array.isArray(r['logs']) ? (r['logs'] as Json[]) : [];
    logs.forEach((log, j) => {
      if (log['removed'] !== false) out.push({ pointer: `/${i}/logs/${j}/removed`, message: `log ${j} of receipt ${i} in a canonical block must have removed: false`, expected: false, actual: log['removed'] ?? '(absent)' });
    });
  });
  return out;
}
