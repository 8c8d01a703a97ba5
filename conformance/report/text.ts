// Plain-text renderings shared by the JUnit and HTML writers and the CLI summary.
import type { Evidence } from '../framework/check.ts';
import { inert } from '../../core/inert.ts';
import { METHODS } from '../../load/shared/methods.ts';
import type { ConformanceReport } from './model.ts';
import type { NotServedMethod } from './not-served.ts';

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** The request on one line, as sent: short, and ready to paste into curl. */
export function requestText(ev: Evidence): string {
  return JSON.stringify(ev.request) ?? String(ev.request);
}

/** The response excerpt, pretty-printed when it is whole JSON (an excerpt cut at the cap is shown raw). */
export function responseText(ev: Evidence): string {
  if (ev.response === undefined) return ev.fault ? `(no body: ${ev.fault})` : '(no body)';
  try {
    return JSON.stringify(JSON.parse(ev.response), null, 2);
  } catch {
    return ev.response;
  }
}

/** "HTTP 200 · application/json · 12 ms · fault: …": what the transport saw. */
export function exchangeMeta(ev: Evidence): string {
  return [
    ev.httpStatus !== undefined ? `HTTP ${ev.httpStatus}` : 'no HTTP response',
    ev.contentType,
    formatDuration(ev.durationMs),
    ev.fault && `fault: ${ev.fault}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The exchanges of a failed check, the failing one first: the last one it made, since a check stops at its
 * first failed assertion (earlier ones are controls and lookups). A passing check keeps the order they ran in. */
export function failingFirst(evidence: Evidence[], failed: boolean): Evidence[] {
  const last = evidence.at(-1);
  return failed && last && evidence.length > 1 ? [last, ...evidence.slice(0, -1)] : evidence;
}

/** The exchange as a curl command a reader can paste: the key is read from $RPC_CERTIFY_API_KEY, never written. */
export function curlText(ev: Evidence, endpoint: string): string {
  const url = endpoint.replace('<redacted>', '$RPC_CERTIFY_API_KEY').replace(/["\\`]/g, '\\$&');
  return `curl -sS "${url}" -H 'Content-Type: application/json' --data '${requestText(ev).replaceAll("'", "'\\''")}'`;
}

/** "NOT SERVED: m (all 9 well-formed calls: 9 × error -32601: …); 20 of its 25 checks fail on it", or "not served (expected …)" for a gap the --expect file accounts for. */
export function notServedLine(m: NotServedMethod, expectFile?: string): string {
  const head = m.expected ? `not served (expected: ${expectFile ?? 'the --expect file'} lists its ${m.failedChecks} failure(s))` : 'NOT SERVED';
  const fails = m.expected ? '' : `; ${m.failedChecks} of its ${m.checks} checks fail on it`;
  return `${head}: ${m.method} (all ${m.calls} well-formed calls: ${inert(m.answers.join('; '), 200)})${fails}`;
}

/** The spec's methods and the service-wide checks a --methods subset (`methods`, the run's) left out: not certified by it, whatever its verdict. */
export function notCertified(methods: readonly string[]): string[] {
  return [...METHODS, 'service'].filter((m) => !methods.includes(m));
}

/** What a report's verdict does not cover (reports written before the field: from its methods). */
export function uncertified(report: ConformanceReport): string[] {
  return report.summary.notCertified ?? notCertified(report.run.methods);
}

/** The line that says a verdict covers a subset (red team C7: a one-method run read "PASS" with no word of the other seven). */
export function scopeLine(report: ConformanceReport): string | undefined {
  const left = uncertified(report);
  const certified = METHODS.filter((m) => report.run.methods.includes(m)).length;
  return left.length ? `scope: ${certified} of the spec's ${METHODS.length} methods (--methods); NOT certified by this run: ${left.join(', ')}` : undefined;
}

