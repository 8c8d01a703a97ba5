// Parsing every answer (JSON.parse) is the largest cost of the k6 scenario's own per-request work, and an
// endpoint answers the same lookup with the same bytes again and again, apart from the id it echoes.
// So a VU remembers, per corpus entry, the last successful answer cut around that id: an answer equal to
// it with the new id (or equal to it, from an endpoint that does not echo ids) has the same verdict,
// exactly. Why: the remembered answer parsed as JSON, so `"id":` in it can only be an object key (inside
// a string its quotes would be escaped); the new answer differs from it only in the whole-number value
// of that key; and classify() reads `result` and `error` at the top level, never a key named "id".
// Pure: run by k6 per request, tested in Node.
import { type Classification, classify, type Expectation, type HttpOutcome } from './classify.ts';
import { SUCCESS_CLASSES } from './methods.ts';

export interface Repeat {
  status: number;
  /** The answer before and after the digits of the id it echoed; or, for an answer that did not echo it, all of it in `head`. */
  head: string;
  rest?: string;
  verdict: Classification;
}

/** What a VU may hold on to: k6 itself needs a few MB per VU, so at most a tenth more. */
export const VU_BUDGET_BYTES = 256 * 1024;

/** Characters that would continue a JSON number after its integer digits. */
const NUMBER_GOES_ON = /^[0-9.eE]/;

/** The answer cut around the one `"id":<id>` in it, if it has exactly one, ending where the number ends. */
export function cutAtId(body: string, id: number): { head: string; rest: string } | undefined {
  const token = `"id":${id}`;
  const at = body.indexOf(token);
  if (at < 0 || body.indexOf(token, at + 1) >= 0) return undefined;
  const end = at + token.length;
  if (NUMBER_GOES_ON.test(body.slice(end, end + 1))) return undefined;
  const digitsAt = at + token.length - String(id).length;
  return { head: body.slice(0, digitsAt), rest: body.slice(end) };
}

/** Where a corpus entry's last answer is remembered (the VU's own record of the entry). */
export interface RepeatSlot {
  repeat?: Repeat;
}

/** The answers one VU remembers, one per corpus entry, within a byte budget (what they hold on to: their bodies). An
 * entry's newer answer replaces its older one; past the budget, answers are parsed every time. */
export class RepeatCache {
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** The verdict of `outcome`, the answer to request `id` for the entry of `slot`: remembered, or classified (always, if `mustParse`). */
  classify(slot: RepeatSlot, id: number, outcome: HttpOutcome, expected: Expectation, mustParse: boolean): Classification {
    const seen = slot.repeat;
    const { body } = outcome;
    if (!mustParse && seen && body !== null && !outcome.timedOut && outcome.status === seen.status && body === (seen.rest === undefined ? seen.head : seen.head + id + seen.rest)) {
      return seen.verdict;
    }
    const verdict = classify(outcome, expected);
    if (body !== null && !outcome.timedOut && SUCCESS_CLASSES.includes(verdict.cls)) this.remember(slot, id, outcome.status, body, verdict);
    return verdict;
  }

  /** Bytes of answers held. */
  get held(): number {
    return this.bytes;
  }

  private remember(slot: RepeatSlot, id: number, status: number, body: string, { cls, code }: Classification): void {
    const size = (r: Repeat | undefined) => (r ? r.head.length + (r.rest?.length ?? 0) : 0);
    this.bytes -= size(slot.repeat);
    const fits = this.bytes + body.length <= this.budget;
    slot.repeat = fits ? { status, ...(cutAtId(body, id) ?? { head: body }), verdict: code === undefined ? { cls } : { cls, code } } : undefined;
    this.bytes += size(slot.repeat);
  }
}
