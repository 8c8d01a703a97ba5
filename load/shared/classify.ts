// Sorts one HTTP exchange into a class. Only the expected outcome is a success: a JSON-RPC error inside an
// HTTP 200 is one only where the corpus expects exactly that code (a revert: 3), a null only where it
// expects a miss. An answer carrying another request's id, a value where a miss's null or a revert's
// error is due, and null for data answered at sampling past any lag (a settled hit) are `wrong`: well-formed
// answers that say something false, not malformed ones (`invalid`).
// Pure: used by k6 per request and by sampling.
import { isRateLimit } from '../../core/rate-limit.ts';
import type { RpcClass } from './answer-classes.ts';

export interface Expectation {
  expect: 'value' | 'null' | 'error';
  /** For expect 'error': the code the spec prescribes (3 for a revert); any other code is an rpc_error. */
  errorCode?: number;
  /** For expect 'value': the data was there at sampling, past any lag (CorpusEntry.settled): a null then is `wrong`. */
  settled?: boolean;
}

export interface HttpOutcome {
  /** 0 when no HTTP response arrived. */
  status: number;
  body: string | null;
  timedOut?: boolean;
  /** The request's id: an answer echoing another is `wrong`. */
  id?: number;
}

export interface Envelope {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export interface Classification {
  cls: RpcClass;
  /** The JSON-RPC error code, for rpc_error, ok_error and rate limits carried in a body. */
  code?: number;
  /** The parsed body, for sampled schema validation of the successful classes. */
  envelope?: Envelope;
  /** For `wrong`: what was wrong with it, in a few words. */
  why?: string;
}

export function classify(outcome: HttpOutcome, expected: Expectation): Classification {
  if (outcome.timedOut) return { cls: 'timeout' };
  if (outcome.status === 0) return { cls: 'http_error' };
  if (outcome.status === 429) return { cls: 'rate_limited' };

  const envelope = parse(outcome.body);
  const error = envelope?.error;
  if (error && typeof error === 'object') {
    const code = typeof error.code === 'number' ? error.code : undefined;
    const coded = (cls: RpcClass): Classification => (code === undefined ? { cls } : { cls, code });
    if (isRateLimit(code, error.message)) return coded('rate_limited');
    if (outcome.status < 200 || outcome.status > 299) return coded('http_error');
    if (outcome.id !== undefined && envelope.id !== outcome.id) return OTHER_ID;
    if (expected.expect === 'error' && code !== undefined && expected.errorCode === code) return { ...coded('ok_error'), envelope };
    // A revert where sampling saw a value past any lag (an estimate that succeeded at a final block): a false answer, not
    // a transient failure. Any other error keeps its meaning (a -32000 now and then, a window's archive miss, 4444).
    if (code === REVERT && expected.expect === 'value' && expected.settled) return REVERT_FOR_VALUE;
    return coded('rpc_error');
  }
  if (outcome.status < 200 || outcome.status > 299) return { cls: 'http_error' };
  if (!envelope || !('result' in envelope)) return { cls: 'invalid' };
  if (outcome.id !== undefined && envelope.id !== outcome.id) return OTHER_ID;
  if (envelope.result === null) return expected.expect === 'null' ? { cls: 'ok_null', envelope } : expected.settled ? NULL_FOR_VALUE : { cls: 'null_unexpected' };
  // A value where a miss or a revert is due: data that does not exist, or a call that reverts, answered as if it did not.
  if (expected.expect === 'null') return VALUE_FOR_NULL;
  return expected.expect === 'error' ? valueForError(expected.errorCode) : { cls: 'ok', envelope };
}

/** The error code of a REVERT (§7). */
const REVERT = 3;
const REVERT_FOR_VALUE: Readonly<Classification> = Object.freeze({ cls: 'wrong', code: REVERT, why: 'a revert (error 3) where sampling saw a value (answered past any lag)' });
const OTHER_ID: Readonly<Classification> = Object.freeze({ cls: 'wrong', why: "the answer carries another id than the request's" });
// Sampling calls the same answer a finding (load/plan/sample.ts judge): under load it must not pass below a failure rate.
const NULL_FOR_VALUE: Readonly<Classification> = Object.freeze({ cls: 'wrong', why: 'null where a value is due (answered at sampling, past any lag)' });
const VALUE_FOR_NULL: Readonly<Classification> = Object.freeze({ cls: 'wrong', why: 'a value where null is due (a miss)' });
const valueForError = (code: number | undefined): Classification => ({ cls: 'wrong', why: `a value where ${code === undefined ? 'an error' : `error ${code}`} is due (a revert)` });

/** The verdict of an answer that meets the expectation: what an answer recognised by its fingerprint gets (core/reply.ts).
 * The commonest verdicts are shared objects, not built per request: readers never change a verdict. */
export function metVerdict(expected: Expectation): Classification {
  if (expected.expect === 'value') return MET_VALUE;
  if (expected.expect === 'null') return MET_NULL;
  return expected.errorCode === undefined ? { cls: 'ok_error' } : { cls: 'ok_error', code: expected.errorCode };
}
const MET_VALUE: Readonly<Classification> = Object.freeze({ cls: 'ok' });
const MET_NULL: Readonly<Classification> = Object.freeze({ cls: 'ok_null' });

function parse(body: string | null): Envelope | undefined {
  if (!body) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An answer a declared near-head window (§8) may excuse: null where a value is due, or a JSON-RPC error. Whether it
 * does depends on the head when it came (load/k6/scenario.ts asks): outside the window it is `archive`.
 */
export function archiveCandidate(v: Classification): boolean {
  return v.cls === 'null_unexpected' || v.cls === 'rpc_error' || v === NULL_FOR_VALUE;
}

export const ARCHIVE: Readonly<Classification> = Object.freeze({ cls: 'archive' });
