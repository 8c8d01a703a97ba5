// One answer compared with a trusted reference node's answer to the same call, field by field (reference/*-agrees).
// Exact for every value both sides serve (what the chain commits to, and what is derived from it); the documented
// allowances: a field only one side serves is noted, not a difference, unless the spec lists it and only the
// reference serves it; `totalDifficulty` of a block after the merge (difficulty 0) is not compared (clients dropped
// it or freeze it); hex is compared without regard to case (addresses may be EIP-55 checksummed).
import { isObject } from './hex.ts';
import { FIELDS } from './fields.ts';

/** What an answer is, which decides the fields the spec lists for it (fields.ts) and how nested values are read. */
export type AnswerKind = 'block' | 'uncle' | 'transaction' | 'receipt' | 'receipts' | 'log' | 'other';

/** A value both sides serve that differs: where, and both answers as JSON text (`absent` when a side lacks it). */
export interface Difference {
  path: string;
  ours: string;
  reference: string;
  /** Why the two values are a difference, where equality is not the rule (an estimate outside its band). */
  why?: string;
}

export interface AnswerDiff {
  differences: Difference[];
  /** Fields one side serves and the other lacks, not differences by the rules above: "/logs/0/blockTimestamp (endpoint only)". */
  oneSided: string[];
  /** Values left uncompared by an allowance, with why. */
  allowed: string[];
}

/** The §2.3 fields the spec marks optional: their absence on the endpoint is noted, never a difference. */
const OPTIONAL_TX = new Set(['accessList', 'chainId', 'maxPriorityFeePerGas', 'maxFeePerGas']);

function specFields(kind: AnswerKind): ReadonlySet<string> {
  switch (kind) {
    case 'block':
      return new Set(Object.keys(FIELDS.block));
    case 'uncle':
      return new Set(Object.keys(FIELDS.block).filter((f) => f !== 'transactions'));
    case 'transaction':
      return new Set(Object.keys(FIELDS.transaction).filter((f) => !OPTIONAL_TX.has(f)));
    case 'receipt':
      return new Set(Object.keys(FIELDS.receipt));
    case 'log':
      return new Set(Object.keys(FIELDS.log));
    default:
      return new Set();
  }
}

/** The kind of a nested value by its field name (a block's full transactions, a receipt's logs). */
function childKind(kind: AnswerKind, field: string): AnswerKind {
  if (kind === 'block' && field === 'transactions') return 'transaction';
  if (kind === 'receipt' && field === 'logs') return 'log';
  if (kind === 'receipts') return 'receipt';
  return 'other';
}

const text = (v: unknown): string => (v === undefined ? 'absent' : (JSON.stringify(v) ?? String(v)));
const HEX = /^0x[0-9a-fA-F]*$/;
/** Two values alike: hex without regard to case (an EIP-55 address, a hex quantity), anything else as its JSON. */
export function same(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && HEX.test(a) && HEX.test(b) ? a.toLowerCase() === b.toLowerCase() : JSON.stringify(a) === JSON.stringify(b);
}

/** `ours` against `reference`, both answers of the same call (results, null included). */
export function diffAnswers(kind: AnswerKind, ours: unknown, reference: unknown): AnswerDiff {
  const out: AnswerDiff = { differences: [], oneSided: [], allowed: [] };
  walk(kind, ours, reference, '', out);
  return out;
}

function walk(kind: AnswerKind, ours: unknown, ref: unknown, path: string, out: AnswerDiff): void {
  if (Array.isArray(ours) && Array.isArray(ref)) {
    if (ours.length !== ref.length) out.differences.push({ path: `${path}/length`, ours: String(ours.length), reference: String(ref.length) });
    const items = kind === 'receipts' ? 'receipt' : kind;
    for (let i = 0; i < Math.min(ours.length, ref.length); i++) walk(items, ours[i], ref[i], `${path}/${i}`, out);
    return;
  }
  if (isObject(ours) && isObject(ref)) {
    const required = specFields(kind);
    // After the merge a block's difficulty is 0 and its totalDifficulty frozen: geth dropped the field, others keep it.
    const merged = (kind === 'block' || kind === 'uncle') && (ref['difficulty'] === '0x0' || ours['difficulty'] === '0x0');
    for (const field of new Set([...Object.keys(ref), ...Object.keys(ours)])) {
      const at = `${path}/${field}`;
      // Own fields only: a field named `constructor` on one side is absent on the other, not Object's.
      const [a, b] = [Object.hasOwn(ours, field) ? ours[field] : undefined, Object.hasOwn(ref, field) ? ref[field] : undefined];
      if (merged && field === 'totalDifficulty') {
        if (!same(a, b)) out.allowed.push(`${at}: ours ${text(a)}, reference ${text(b)} (totalDifficulty after the merge: not compared)`);
        continue;
      }
      if (a === undefined || b === undefined) {
        // The endpoint lacking a field the spec lists, which the reference serves, is a difference; the rest is noted.
        if (a === undefined && required.has(field)) out.differences.push({ path: at, ours: 'absent', reference: text(b) });
        else out.oneSided.push(`${at} (${a === undefined ? 'reference' : 'endpoint'} only)`);
        continue;
      }
      walk(childKind(kind, field), a, b, at, out);
    }
    return;
  }
  if (!same(ours, ref)) out.differences.push({ path: path || '/', ours: text(ours), reference: text(ref) });
}
