// Several endpoints asked the same immutable question (a block by hash, a transaction, a settled receipt, a block's
// receipts): where they disagree on a field, at least one of them deviates, and no single-endpoint check can see it
// where no hash commits to the field (a log's blockTimestamp, a block's size, a legacy transaction's chainId). Each
// endpoint's answer is compared field by field with the others' by the reference diff's rules (answer-diff.ts); a
// value is held against the majority of those that serve the field. Null answers, errors and absent fields never
// vote; a tie is "no majority", never a side picked. Pure: conformance's quorum/* and load side by side both vote here.
import { isObject } from './hex.ts';
import { type AnswerKind, diffAnswers } from './answer-diff.ts';

/** What every note on a vote ends with: agreement is not proof of conformance. */
export const AGREE_BY_CONSTRUCTION = 'endpoints that share a backend or run the same client agree by construction: a majority is evidence, not proof';

/** One endpoint's answer to the call: its result, an object or a list (null and errors are no ballot). */
export interface Ballot {
  name: string;
  answer: unknown;
}

/** A field where the endpoints do not all agree: every value served, and who served it. */
export interface Contest {
  path: string;
  /** This endpoint's value, as JSON text. */
  ours: string;
  /** Each value served (this endpoint's included), with the endpoints serving it, most served first. */
  values: Array<{ value: string; by: string[] }>;
  /** The value served by more endpoints than any other; absent when two or more values tie (no majority). */
  majority?: string;
}

export interface Vote {
  /** Fields where this endpoint is outvoted: the majority serves another value. */
  outvoted: Contest[];
  /** Fields where no value has a majority (this endpoint's among the tied ones). */
  ties: Contest[];
  /** Fields where another endpoint is outvoted and this one sides with the majority. */
  others: Contest[];
}

const HEX = /^0x[0-9a-fA-F]*$/;
/** A value's vote: hex without regard to case (same() of answer-diff.ts), anything else as its JSON. */
function voteOf(v: unknown): string {
  return typeof v === 'string' && HEX.test(v) ? JSON.stringify(v.toLowerCase()) : (JSON.stringify(v) ?? 'undefined');
}

/** The value at a path of answer-diff.ts (`/logs/0/data`, `/logs/length`), or undefined where there is none. */
export function valueAt(answer: unknown, path: string): unknown {
  let at: unknown = answer;
  for (const part of path.split('/').slice(1)) {
    if (part === '') continue;
    if (Array.isArray(at)) at = part === 'length' ? at.length : /^\d+$/.test(part) ? at[Number(part)] : undefined;
    else if (isObject(at)) at = Object.hasOwn(at, part) ? at[part] : undefined;
    else return undefined;
  }
  return at;
}

/**
 * `self` held against `peers` (every other endpoint's non-null answer to the same call). A field is contested where
 * any answer differs from this endpoint's by the reference diff's rules; there, every endpoint serving the field votes.
 */
export function vote(kind: AnswerKind, self: Ballot, peers: readonly Ballot[]): Vote {
  const paths = new Set<string>();
  for (const p of peers) for (const d of diffAnswers(kind, self.answer, p.answer).differences) if (d.ours !== 'absent' && d.reference !== 'absent') paths.add(d.path);
  const out: Vote = { outvoted: [], ties: [], others: [] };
  for (const path of paths) {
    const groups = new Map<string, string[]>();
    for (const b of [self, ...peers]) {
      const v = valueAt(b.answer, path);
      if (v === undefined) continue;
      const key = voteOf(v);
      groups.set(key, [...(groups.get(key) ?? []), b.name]);
    }
    const values = [...groups].map(([value, by]) => ({ value, by })).sort((a, b) => b.by.length - a.by.length);
    const [top, second] = values;
    if (!top || values.length < 2) continue;
    const majority = second && second.by.length === top.by.length ? undefined : top.value;
    const mine = valueAt(self.answer, path);
    // A field this endpoint does not serve is not its vote to lose (absent fields never vote).
    if (mine === undefined) continue;
    const ours = voteOf(mine);
    const contest: Contest = { path, ours, values, ...(majority ? { majority } : {}) };
    if (majority === undefined) out.ties.push(contest);
    else if (majority !== ours) out.outvoted.push(contest);
    else out.others.push(contest);
  }
  return out;
}

/** '"0x2" from a, b against "0x1" from c (this endpoint)': every value with who served it. */
export function valuesText(c: Contest, self: string): string {
  return c.values.map((v) => `${v.value} from ${[...v.by.filter((n) => n !== self), ...v.by.filter((n) => n === self).map((n) => `${n} (this endpoint)`)].join(', ')}`).join(' against ');
}
