// A method the endpoint does not serve at all is one finding, not twenty failed checks. It is decided per
// method from every call the run made to it (its own checks' and those leaning on it), never from one answer:
//
//   NOT SERVED  <=>  at least MIN_CALLS distinct well-formed calls (by params) owed a result (Evidence.resultDue)
//                    got an answer, every answer to each of them says the method is not there (framework/not-there.ts),
//                    and no call to it, well-formed or not, was answered with a result (null included).
//
// The errors malformed calls get say nothing either way (a gateway may check params before it finds the method
// missing); calls that got no answer (timeouts, resets, rate limits) count neither way: a method with no answer at
// all is "never answered" (model.ts). One well-formed call answered otherwise (a result, null, another error)
// makes the method served: its checks then judge it one by one.
import type { CheckResult, Evidence } from '../framework/check.ts';
import { isObject } from '../../core/hex.ts';
import { notThere } from '../framework/not-there.ts';

/** The fewest distinct well-formed calls, all answered "not there", that make a method not served. */
export const MIN_CALLS = 2;

export interface NotServedMethod {
  method: string;
  /** Distinct well-formed calls that got an answer, every one of them "not there". */
  calls: number;
  /** The answers, most frequent first: "9 × error -32004: Method … is not supported". */
  answers: string[];
  /** The method's own checks, and how many of them failed. */
  checks: number;
  failedChecks: number;
  /** The --expect file accounts for every failed check of the method: a known gap, which does not fail the run. */
  expected: boolean;
}

/** What one answered call said, when it says the method is not there; undefined for any other answer. */
const notThereAnswer = (ev: Evidence): string | undefined => notThere(ev.httpStatus, bodyOf(ev.response));

/**
 * The methods no call was served, by the rule above, with the answers that say so. `explained(check)` says whether
 * the --expect file accounts for a failed check.
 */
export function notServedMethods(checks: CheckResult[], explained: (c: CheckResult) => boolean): NotServedMethod[] {
  // Per method, per distinct params: whether some call was owed a result, and what each answer to it was.
  type Call = { due: boolean; answers: Array<string | 'result' | undefined> };
  const calls = new Map<string, Map<string, Call>>();
  for (const { evidence } of checks) {
    for (const ev of evidence) {
      const req = ev.request;
      // The reference node's answers (--reference-url) say nothing of what the endpoint serves.
      if (ev.reference || ev.peer !== undefined || !isObject(req) || typeof req['method'] !== 'string' || !answered(ev)) continue;
      const byParams = calls.get(req['method']) ?? new Map<string, Call>();
      calls.set(req['method'], byParams);
      const key = JSON.stringify(req['params']) ?? '';
      const call = byParams.get(key) ?? { due: false, answers: [] };
      byParams.set(key, call);
      call.due ||= ev.resultDue === true;
      call.answers.push(hasResult(ev) ? 'result' : notThereAnswer(ev));
    }
  }
  const out: NotServedMethod[] = [];
  for (const [method, byParams] of calls) {
    const own = checks.filter((c) => c.method === method);
    const all = [...byParams.values()];
    const due = all.filter((c) => c.due);
    // Only a method the run certifies. A call repeated (fresh reads of a tag, the memo shared between checks) must be "not there" every time.
    if (own.length === 0 || due.length < MIN_CALLS || all.some((c) => c.answers.includes('result'))) continue;
    if (due.some((c) => c.answers.includes(undefined))) continue;
    const failed = own.filter((c) => c.verdict === 'fail');
    out.push({
      method,
      calls: due.length,
      answers: tallied(due.map((c) => c.answers[0]!)),
      checks: own.length,
      failedChecks: failed.length,
      expected: failed.length > 0 && failed.every(explained),
    });
  }
  // In the run's order of methods.
  const first = (m: string) => checks.findIndex((c) => c.method === m);
  return out.sort((a, b) => first(a.method) - first(b.method));
}

/** A response arrived (a rate limit is not an answer about the method). */
function answered(ev: Evidence): boolean {
  return ev.httpStatus !== undefined && ev.httpStatus !== 429 && !ev.fault?.startsWith('rate-limited');
}

function bodyOf(response: string | undefined): Record<string, unknown> | undefined {
  if (response === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(response);
    return isObject(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/** The call was answered with a result (null included): the method is there. */
function hasResult(ev: Evidence): boolean {
  const body = bodyOf(ev.response);
  return body !== undefined && 'result' in body && !('error' in body);
}

function tallied(answers: string[]): string[] {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([a, n]) => `${n} × ${a}`);
}
