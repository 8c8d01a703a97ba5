// Every field of the spec's objects (§2.2-§2.5) and every block tag is in the one field table (conformance/framework/
// fields.ts), and each row names a check that ties its value to something, or the reason none can exist. The table's
// "committed to by" flags (header, signed, committed), which checks' `ties` are built from, are held to the recomputes
// themselves: changing a flagged field changes what is recomputed, changing any other field does not.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Json } from '../../core/invariants/encoding.ts';
import { headerHash } from '../../core/invariants/header.ts';
import { receiptEnvelope } from '../../core/invariants/receipt.ts';
import { txHash } from '../../core/invariants/tx.ts';
import { fieldOrigins, type ShapeName } from '../../core/schemas.ts';
import { allFields, FIELDS, type FieldEntry, type FieldKind, fieldsOf } from '../../core/fields.ts';
import { allSuites } from '../../conformance/methods.ts';
import { tyingChecks } from '../../scripts/readme-checks.ts';

const vectors = JSON.parse(readFileSync(new URL('../support/invariant-vectors.json', import.meta.url), 'utf8')) as { london: { block: Json; transactions: Json[] }; blob: Array<{ tx: Json }> };
const names = (kind: FieldKind) => fieldsOf(kind).map((tie) => tie.slice(kind.length + 1));
const entry = (kind: FieldKind, field: string) => (FIELDS[kind] as Record<string, FieldEntry>)[field]!;

/** The same value, changed but still well formed: a hex digit flipped, a list one item longer or shorter. */
function changed(v: unknown): unknown {
  if (typeof v === 'string') return `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`;
  if (Array.isArray(v)) return v.length ? v.slice(0, -1) : [{ address: `0x${'11'.repeat(20)}`, storageKeys: [] }];
  return v === false ? true : '0x1';
}

/** The recompute's answer, or the refusal (a field it needs, changed past encoding): either way, it saw the field. */
function outcome(fn: () => unknown): string {
  try {
    return String(fn());
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

describe('field table (docs/checks.md: fields tied to something)', function () {
  it('holds every field of the spec\'s block, transaction, receipt and log objects, as the schemas list them (x-origin: the spec), and no other', function () {
    const shapes: Array<[FieldKind, ShapeName]> = [['block', 'block'], ['transaction', 'transaction'], ['receipt', 'receipt'], ['log', 'log']];
    for (const [kind, shape] of shapes) {
      const spec = [...fieldOrigins(shape)].filter(([, origin]) => origin === 'spec').map(([field]) => field);
      expect([...names(kind)].sort(), kind).to.deep.equal(spec.sort());
    }
  });

  it('holds every block tag the suite sends (covers tag:…), and only those', function () {
    const sent = new Set(allSuites.flatMap((s) => s.checks.flatMap(({ spec }) => (spec.covers ?? []).filter((c) => c.startsWith('tag:')).map((c) => c.slice(4)))));
    expect([...names('tag')].sort()).to.deep.equal([...sent].sort());
    expect(names('tag')).to.have.members(['latest', 'earliest', 'pending', 'safe', 'finalized']);
  });

  it('names, on every row, a check that ties the value or the reason none can exist, never both', function () {
    const by = tyingChecks();
    const bare = allFields().filter(({ tie, entry: e }) => (by.get(tie) ?? []).length === 0 && !e.none).map(({ tie }) => tie);
    expect(bare, 'fields and tags no check ties, without a reason').to.deep.equal([]);
    const both = allFields().filter(({ tie, entry: e }) => (by.get(tie) ?? []).length > 0 && e.none).map(({ tie }) => tie);
    expect(both, 'a reason no check can exist beside a check that does').to.deep.equal([]);
  });

  it('lets a check tie only fields and tags of the table', function () {
    const known = new Set(allFields().map(({ tie }) => tie));
    const unknown = allSuites.flatMap((s) => s.checks.flatMap(({ spec }) => (spec.ties ?? []).filter((t) => !known.has(t)).map((t) => `${spec.id}: ${t}`)));
    expect(unknown).to.deep.equal([]);
  });

  it('flags as header exactly the block fields the block hash commits to', function () {
    const block: Json = { ...vectors.london.block, totalDifficulty: '0x1', size: '0x1', transactions: [] };
    const hash = headerHash(block);
    for (const field of names('block')) {
      const moved = outcome(() => headerHash({ ...block, [field]: changed(block[field]) })) !== hash;
      expect(moved, `block.${field}`).to.equal(Boolean(entry('block', field).header));
    }
  });

  it('flags as signed exactly the transaction fields its hash commits to (in some type), and the hash', function () {
    const txs = [...vectors.london.transactions, ...vectors.blob.map((b) => b.tx)];
    for (const tx of txs) expect(txHash(tx), String(tx['hash'])).to.equal(tx['hash']);
    for (const field of names('transaction').filter((f) => f !== 'hash')) {
      const moved = txs.some((tx) => field in tx && outcome(() => txHash({ ...tx, [field]: changed(tx[field]) })) !== tx['hash']);
      expect(moved, `transaction.${field}`).to.equal(Boolean(entry('transaction', field).signed));
    }
    expect(entry('transaction', 'hash').signed, 'the hash the recompute must equal').to.equal(true);
  });

  it('flags as committed exactly the receipt and log fields receiptsRoot commits to', function () {
    const log = { address: `0x${'aa'.repeat(20)}`, topics: [`0x${'bb'.repeat(32)}`], data: '0x1234', blockNumber: '0x5', blockHash: `0x${'cc'.repeat(32)}`, transactionHash: `0x${'dd'.repeat(32)}`, transactionIndex: '0x0', logIndex: '0x0', removed: false };
    const receipt: Json = { blockHash: log.blockHash, blockNumber: '0x5', contractAddress: null, cumulativeGasUsed: '0x5208', effectiveGasPrice: '0x7', from: `0x${'ee'.repeat(20)}`, gasUsed: '0x5208', logs: [log], logsBloom: `0x${'00'.repeat(256)}`, status: '0x1', to: `0x${'ff'.repeat(20)}`, transactionHash: log.transactionHash, transactionIndex: '0x0', type: '0x2' };
    const encoded = outcome(() => receiptEnvelope(receipt));
    for (const field of names('receipt')) {
      // root replaces status in a pre-Byzantium receipt: present at all, it is what is encoded.
      const next = field === 'root' ? { ...receipt, root: `0x${'12'.repeat(32)}` } : { ...receipt, [field]: changed(receipt[field]) };
      expect(outcome(() => receiptEnvelope(next)) !== encoded, `receipt.${field}`).to.equal(Boolean(entry('receipt', field).committed));
    }
    for (const field of names('log')) {
      const next = { ...receipt, logs: [{ ...log, [field]: changed(log[field as keyof typeof log]) }] };
      expect(outcome(() => receiptEnvelope(next)) !== encoded, `log.${field}`).to.equal(Boolean(entry('log', field).committed));
    }
  });
});
