// What a check enforces, as data: a section of the service spec (shared/spec/node-access-methods.md) or a protocol
// invariant (shared/notes/facts.md), and the one function that prints it for the catalogue, the reports and Mocha.
import type { FIELDS } from '../../core/fields.ts';

/** The spec's numbered sections (its headings): a clause naming any other does not compile. */
export type Section = '1' | '2' | '2.1' | '2.2' | '2.3' | '2.4' | '2.5' | '3' | '4' | '4.1' | '4.2' | '4.3' | '4.4' | '4.5' | '4.6' | '4.7' | '4.8' | '5' | '6' | '7' | '8' | '9';

/** The invariants checks recompute or cross-check, each with where it is stated (facts.md unless said). */
export const INVARIANTS = {
  'block hash': 'facts.md: block hash = keccak256(rlp(header fields)), fields per fork',
  'block encoding': 'facts.md: the header and body RLP the block hash commits to',
  'chain of headers': 'facts.md: a block names its parent by hash',
  'the chain only grows': 'facts.md: moving chains and stale providers',
  'one fork after a reorg': 'facts.md: reorgs (a provider served a pre-reorg fork for 15+ minutes)',
  'transaction hash': 'facts.md: tx hash = keccak256 of the signed typed envelope',
  'transaction sender': 'facts.md: from = ecrecover of the signature',
  'transaction envelope': 'facts.md: transaction types 0x0-0x4 and their fields',
  transactionsRoot: 'facts.md: Merkle-Patricia root over the block\'s transactions',
  receiptsRoot: 'facts.md: Merkle-Patricia root over the block\'s receipts',
  withdrawalsRoot: 'EIP-4895: Merkle-Patricia root over the block\'s withdrawals',
  logsBloom: 'facts.md: a receipt\'s bloom is the bloom of its logs; the block\'s the OR of its receipts\'',
  cumulativeGasUsed: 'facts.md: non-decreasing in a block, the last equal to the block\'s gasUsed',
  logIndex: 'facts.md: contiguous across the block',
  'receipts against transactions': 'facts.md: transactionIndex = position, blockHash and blockNumber the block\'s',
  'same transaction through each method': 'facts.md: a transaction agrees field for field through every method',
  'same receipt through each method': 'facts.md: eth_getTransactionReceipt equals the element of eth_getBlockReceipts',
  contractAddress: 'facts.md: keccak(rlp([from, nonce]))[12:]',
  'EIP-1559': 'execution-apis: a mined transaction\'s gasPrice and effectiveGasPrice are the price it paid',
  'head as fresh as a reference': 'facts.md: moving chains and stale providers: a backend consistently behind is revealed only by a fresh reference',
  'history as deep as declared': 'facts.md: history expiry (EIP-4444, error 4444); eth_capabilities declares per resource the oldest block kept',
  'same answer as a reference': 'facts.md: a provider on the same chain as a trusted node answers the same call with the same data',
  'same answer as the other providers': 'facts.md: immutable data (a block by hash, a mined transaction, a settled receipt) is the same whoever serves it',
} as const;
export type Invariant = keyof typeof INVARIANTS;

/** Standards outside the service spec a section's rule leans on. */
export type Standard = 'JSON-RPC 2.0' | 'EIP-4844';

/** A part of a section: its parameters, its example request, the block tags (§1), the request id (§1), batches, the HTTP transport (§1). */
export type Part = 'params' | 'example' | 'block tag' | 'id' | 'batch' | 'notification' | 'transport';

/** The sections that define an object, and its name in the field table (fields.ts). */
interface ObjectSections { '2.2': 'block'; '2.3': 'transaction'; '2.4': 'receipt'; '2.5': 'log' }
/** The fields of a section's object, from the one field table: a field the section's object lacks does not compile. */
type FieldOf<S extends Section> = S extends keyof ObjectSections ? Extract<keyof (typeof FIELDS)[ObjectSections[S]], string> : never;

interface SectionRefOf<S extends Section> {
  section: S;
  /** A numbered rule of the section ("rule 1"). */
  rule?: number;
  part?: Part;
  /** A field of the section's object (§2.2-§2.5 only). */
  field?: FieldOf<S>;
  /** The spec does not state what the check judges (the check is advisory or leans on `per`). */
  unstated?: true;
  per?: Standard;
}
export type SectionRef = { [S in Section]: SectionRefOf<S> }[Section];

export interface InvariantRef {
  invariant: Invariant;
  /** The field through which the invariant is judged, where it is not the invariant's own. */
  field?: FieldOf<keyof ObjectSections>;
}

export type ClauseRef = SectionRef | InvariantRef;
/** One reference, or several when a check enforces several. */
export type Clause = ClauseRef | readonly [ClauseRef, ...ClauseRef[]];

const isSection = (r: ClauseRef): r is SectionRef => 'section' in r;
export const refsOf = (c: Clause): readonly ClauseRef[] => ('section' in c || 'invariant' in c ? [c as ClauseRef] : c);

function sectionText(s: SectionRef): string {
  const words = [`§${s.section}`, s.rule !== undefined ? `rule ${s.rule}` : '', s.part ?? '', s.field ?? ''].filter(Boolean).join(' ');
  const notes = [s.unstated ? 'not shown' : '', s.per ?? ''].filter(Boolean);
  return notes.length ? `${words} (${notes.join('; ')})` : words;
}

/** The one printed form: sections first (comma-separated), then "invariant: a, b" after a semicolon. */
export function renderClause(c: Clause): string {
  const refs = refsOf(c);
  const sections = refs.filter(isSection).map(sectionText);
  const invariants = refs.filter((r): r is InvariantRef => !isSection(r)).map((r) => (r.field ? `${r.invariant} (${r.field})` : r.invariant));
  return [sections.join(', '), invariants.length ? `invariant: ${invariants.join(', ')}` : ''].filter(Boolean).join('; ');
}
