// The one decision of a load run: every check the run is held to (the run completing, what sampling found, wrong
// answers, fresh reads, the head lag against a reference, the head, thresholds, the baseline, drift), which of them
// failed or could not be judged and why, and from that its verdict and exit code. load.json stores it (withVerdict); the terminal summary, load.html and load.junit.xml print it; `compare`
// and `--baseline` read it; none of them judges on its own. Pure.
import { EXIT } from '../../core/node/errors.ts';
import { describeCheck } from './compare.ts';
import type { LoadReport } from '../shared/load-report.ts';
import { ALWAYS_ASKED } from '../shared/freshness.ts';
import { lagBeyond } from './head-lag.ts';
import { metricName, type Subject } from '../shared/answer-classes.ts';

export type Verdict = LoadReport['verdict'];

/** What a check is about; also its rank among the reasons (most decisive first) and its place in load.junit.xml. */
export const CHECK_KINDS = ['run', 'rateLimit', 'sampling', 'answers', 'fresh', 'headLag', 'head', 'threshold', 'baseline', 'drift'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export interface GateCheck {
  kind: CheckKind;
  /** JUnit's classname and test case name. */
  className: string;
  name: string;
  /** Why it failed: the reason the summary lists and the JUnit failure. None when it held. */
  failure?: string;
  /** Why it could not be judged (no failure seen): never a pass; the run is inconclusive unless another check failed. */
  inconclusive?: string;
  /** Why it was not asked of this run (a reference-only check without a reference): counts neither way. */
  skipped?: string;
}

export interface Decision {
  verdict: Verdict;
  /** Every check, in load.junit.xml's order. */
  checks: GateCheck[];
  /** The failed checks' reasons, most decisive first, then what could not be judged: empty exactly when the run passed (or measured). */
  reasons: string[];
  /** How many of the reasons are failures (the rest could not be judged). */
  failed: number;
}

/**
 * Any failed check fails the run, whatever the profile: a capacity run only measures when every check held.
 * A wrong answer fails it whatever its rate (the rate is in the reason): an endpoint that answers wrongly once in
 * 10,000 calls answers wrongly, and no failure-rate threshold excuses it.
 */
export function decide(r: LoadReport): Decision {
  const checks = gateChecks(r);
  const failed = checks.filter((c) => c.failure !== undefined);
  const rank = (c: GateCheck) => CHECK_KINDS.indexOf(c.kind);
  const unjudged = checks.filter((c) => c.failure === undefined && c.inconclusive !== undefined);
  const reasons = [...[...failed].sort((a, b) => rank(a) - rank(b)).map((c) => c.failure ?? ''), ...unjudged.map((c) => `not judged: ${c.inconclusive ?? ''}`)];
  const verdict: Verdict = isIncomplete(r) ? 'incomplete' : failed.length ? 'fail' : unjudged.length ? 'inconclusive' : r.profile === 'capacity' ? 'measured' : 'pass';
  return { verdict, checks, reasons, failed: failed.length };
}

/** The report with the decision's verdict and reasons: the only way a report gets them. */
export function withVerdict(r: LoadReport): LoadReport {
  const { verdict, reasons } = decide(r);
  return { ...r, verdict, reasons };
}

/** The exit code of a decided run: 0 pass (or measured), 1 fail, 3 inconclusive, 130 incomplete. */
export function exitCodeOf(verdict: Verdict): number {
  return verdict === 'incomplete' ? EXIT.interrupted : verdict === 'fail' ? EXIT.fail : verdict === 'inconclusive' ? EXIT.inconclusive : EXIT.pass;
}

/**
 * Why a completed run failed on its own (a regression against its own baseline aside), for `compare` and `load --baseline`:
 * such a run is no baseline (its limits would allow the same failures), and no current run that could pass a comparison.
 * Decided again from the report's figures, so an older report that passed with a wrong answer is judged as today.
 */
export function failedOnItsOwn(r: LoadReport, which: string): string | undefined {
  const own = decide(r).checks.filter((c) => c.failure !== undefined && c.kind !== 'baseline' && c.kind !== 'run');
  if (own.length === 0) return undefined;
  const shown = own.slice(0, 3).map((c) => c.failure).join('; ');
  return `${which} is a failed run (${shown}${own.length > 3 ? `; ${own.length - 3} more` : ''})`;
}

/** What a completed run could not judge on its own (a reference that failed, say): `compare` passes no such run, it is inconclusive. */
export function unjudgedOnItsOwn(r: LoadReport, which: string): string | undefined {
  const own = decide(r).checks.filter((c) => c.failure === undefined && c.inconclusive !== undefined && c.kind !== 'baseline');
  return own.length ? `${which} could not be judged in full (${own.map((c) => c.inconclusive).join('; ')})` : undefined;
}

/** Figures that do not cover the run (a k6 metrics export lost): nothing in them failed, but the run is not judged in full. */
function uncountedOf(r: LoadReport): Pick<GateCheck, 'inconclusive'> {
  const { uncounted, planned } = r.generator;
  return uncounted ? { inconclusive: `k6's figures miss ${uncounted} of the ${planned ?? '?'} planned requests (neither counted nor dropped: its metrics did not all reach the harness), so the run is not judged in full` } : {};
}

/** Iterations that threw: whatever their answers were (a wrong one among them), no check saw them. */
function thrownOf(r: LoadReport): Pick<GateCheck, 'inconclusive'> {
  const { scriptErrors, scriptError } = r.generator;
  if (!scriptErrors) return {};
  return { inconclusive: `${scriptErrors} iteration${scriptErrors === 1 ? '' : 's'} of the harness's k6 script threw, so ${scriptErrors === 1 ? 'its answer was' : 'their answers were'} judged by no check${scriptError ? ` (first: ${scriptError})` : ''}: a fault of the harness, to report` };
}

/**
 * The endpoint's rate limit (HTTP 429, or -32005 and its kin in a body: the `rate_limited` class) named as such, apart
 * from the failure rate it also raises: a run throttled in part measured the key's budget, not the service.
 */
function rateLimitCheck(r: LoadReport, p: string): GateCheck {
  const methods = Object.entries(r.methods);
  const throttled = methods.reduce((a, [, m]) => a + (m.classes.rate_limited ?? 0), 0);
  const requests = methods.reduce((a, [, m]) => a + m.requests, 0);
  const most = methods.filter(([, m]) => m.classes.rate_limited).sort((a, b) => b[1].classes.rate_limited - a[1].classes.rate_limited).slice(0, 3).map(([n, m]) => `${n} ${m.classes.rate_limited}`);
  return {
    kind: 'rateLimit',
    className: `${p}.rateLimit`,
    name: "no request throttled by the endpoint's rate limit",
    ...(throttled ? { failure: `${share(throttled, requests)} of requests (${throttled} of ${requests}: ${most.join(', ')}) throttled by the endpoint's rate limit (HTTP 429 or -32005): the key's budget, not the service, is what this run measured; --rate-limit N declares the budget and refuses a plan above it` } : {}),
  };
}

/**
 * A latency threshold of a method every one of whose answers was archive (§8: null or an error once its block had left
 * the declared near-head window): no latency was measured, and none was due, so it is not judged (never a pass).
 */
function allArchive(r: LoadReport, t: LoadReport['thresholds'][number]): string | undefined {
  if (t.value !== undefined) return undefined;
  const hit = Object.entries(r.methods).find(([name]) => t.metric === metricName.latency(name as Subject));
  const m = hit?.[1];
  const archive = m?.classes.archive ?? 0;
  return hit && archive > 0 && archive === m?.requests ? `${hit[0]}: every answer (${archive}) was archive (§8: its block had left the declared near-head window since sampling), so no latency was measured: ${t.metric} ${t.expression} not judged` : undefined;
}

const isIncomplete = (r: Pick<LoadReport, 'verdict' | 'incompleteReason'>) => r.incompleteReason !== undefined || r.verdict === 'incomplete';

function gateChecks(r: LoadReport): GateCheck[] {
  const p = `load.${r.profile}`;
  const checks: GateCheck[] = [
    { kind: 'run', className: `${p}.run`, name: 'the run completed as planned', ...(isIncomplete(r) ? { failure: `incomplete: ${r.incompleteReason ?? 'stopped early'}` } : uncountedOf(r)) },
    { kind: 'run', className: `${p}.script`, name: "every iteration of the harness's script ran to its verdict", ...thrownOf(r) },
    ...r.thresholds.map((t): GateCheck => {
      const unjudged = t.ok ? undefined : allArchive(r, t);
      return { kind: 'threshold', className: `${p}.${t.metric}`, name: `${t.metric} ${t.expression}`, ...(t.ok ? {} : unjudged ? { inconclusive: unjudged } : { failure: thresholdFailure(t) }) };
    }),
    rateLimitCheck(r, p),
    {
      kind: 'head',
      className: `${p}.head`,
      name: 'eth_blockNumber never goes back',
      ...(r.head.regressions ? { failure: `eth_blockNumber went back ${r.head.regressions} times in ${r.head.checks} checks (up to ${r.head.deepestBlocks} blocks)${r.head.sample ? `, e.g. ${r.head.sample}` : ''}` } : {}),
    },
  ];
  const faults = sampledFaults(r);
  for (const method of Object.keys(r.corpus.methods ?? {})) {
    const mine = faults.filter((f) => f.method === method);
    checks.push({
      kind: 'sampling',
      className: `load.sampling.${method}`,
      name: `${method} served, every entry answering as its kind requires`,
      ...(mine.length ? { failure: mine.map((f) => (f.notServed ? `Not served: ${f.text}` : `sampling found ${f.text}`)).join('; ') } : {}),
    });
  }
  for (const [method, m] of Object.entries(r.methods)) {
    const wrong = m.classes.wrong;
    checks.push({
      kind: 'answers',
      className: `load.answers.${method}`,
      name: `${method} never answered wrongly under load`,
      ...(wrong > 0 ? { failure: `${method}: ${wrong} wrong answer${wrong === 1 ? '' : 's'} in ${m.requests} (${share(wrong, m.requests)})${m.wrongSample ? `, e.g. ${m.wrongSample}` : ''}` } : {}),
    });
  }
  // Fresh reads (shared/freshness.ts): any stale read past the grace fails the run, named by its method; so does a
  // method asked for every announced block that had no answer to judge (errors, timeouts): silence is no pass.
  if (r.freshness) {
    const fresh = r.freshness;
    for (const method of ALWAYS_ASKED.filter((m) => !fresh.methods[m]?.requests)) {
      checks.push({ kind: 'fresh', className: `load.fresh.${method}`, name: `${method} judged fresh`, failure: `${method}: no fresh read judged (every answer to the head-chasing client was an error or a timeout, or none came)` });
    }
    for (const [method, f] of Object.entries(fresh.methods)) {
      // Asked, but every request failed (HTTP errors, timeouts) within the grace or at `latest`: silence is no pass.
      if (!f.requests && f.failed && !(ALWAYS_ASKED as readonly string[]).includes(method)) {
        checks.push({ kind: 'fresh', className: `load.fresh.${method}`, name: `${method} judged fresh`, failure: `${method}: no fresh read judged, ${f.failed} fresh request${f.failed === 1 ? '' : 's'} failed (an HTTP error, a timeout or no answer)` });
        continue;
      }
      // Only `latest` answers that name no block (not judgeable against the head): nothing was judged, so no check held.
      if (!f.requests && !f.stale) continue;
      const of = [f.latestBehind ? `${f.latestBehind} of them an older block than the announced head for latest` : '', f.wrong ? `${f.wrong} of them wrong: another block's objects, or a torn read` : ''].filter(Boolean);
      const why = of.length ? ` (${of.join('; ')})` : '';
      const failed = f.failed ? `; ${f.failed} fresh request${f.failed === 1 ? '' : 's'} failed (an HTTP error, a timeout or no answer)` : '';
      checks.push({
        kind: 'fresh',
        className: `load.fresh.${method}`,
        name: `${method} never stale past the ${fresh.graceMs} ms grace`,
        ...(f.stale > 0 ? { failure: `${method}: ${f.stale} stale read${f.stale === 1 ? '' : 's'} in ${f.requests} fresh requests (${share(f.stale, f.requests)})${why}${failed}${f.staleSample ? `, e.g. ${f.staleSample}` : ''}` } : {}),
      });
    }
  }
  if (r.headLag) checks.push(headLagCheck(r.headLag));
  if (r.baseline) checks.push(...baselineChecks(r.baseline));
  for (const [name, d] of Object.entries(r.drift ?? {})) {
    checks.push({ kind: 'drift', className: `load.drift.${name}`, name: `${name} p95 drift`, ...(d.drifted ? { failure: `${name} drifted: p95 ${d.startP95Ms} ms at the start, ${d.endP95Ms} ms at the end (x${d.ratio})` } : {}) });
  }
  return checks;
}

/**
 * The comparison with the baseline, one check per method (compare.ts gateOutcome): regressed fails it, naming each
 * comparison whose interval lay above the limit; a method none of whose percentiles could be shown to hold leaves the
 * run inconclusive, named with what it would take. Reports written before the outcome was kept: per comparison, as then.
 */
function baselineChecks(b: NonNullable<LoadReport['baseline']>): GateCheck[] {
  if (!b.outcome) return b.checks.map((c) => ({ kind: 'baseline', className: `load.baseline.${c.method}`, name: `${c.method} ${c.metric}`, ...(c.ok ? {} : { failure: `regressed against ${b.file}: ${describeCheck(c)}` }) }));
  const methods = Object.entries(b.outcome.methods);
  if (!methods.length) return [{ kind: 'baseline', className: 'load.baseline', name: 'against the baseline', inconclusive: `no method of ${b.file} has figures to compare with this run's` }];
  return methods.map(([method, o]) => {
    const regressed = b.checks.filter((c) => c.method === method && c.judgement === 'regressed');
    const check = { kind: 'baseline' as const, className: `load.baseline.${method}`, name: `${method} against the baseline` };
    if (o.verdict === 'regressed') return { ...check, failure: `regressed against ${b.file}: ${regressed.map(describeCheck).join('; ')}` };
    if (o.verdict === 'inconclusive') return { ...check, inconclusive: `${method} against ${b.file}: ${o.why ?? ''}` };
    return check;
  });
}

/**
 * The head lag against the reference (report/head-lag.ts): a lag beyond --max-head-lag seen in any judged sample fails
 * the run, whatever else the samples could not judge; samples that cannot judge the run (the reference failed or
 * stopped answering, or trailed the endpoint) leave it inconclusive; without a reference it is not asked.
 */
function headLagCheck(h: NonNullable<LoadReport['headLag']>): GateCheck {
  const check = { kind: 'headLag' as const, className: 'load.headLag', name: `head lag against the reference within ${h.maxLagSec} s${h.maxLagBlocks === undefined ? '' : ` and ${h.maxLagBlocks} blocks`}` };
  const [s, b] = [h.seconds, h.blocks];
  const { seconds: overSec, blocks: overBlocks } = lagBeyond(h);
  if (s && (overSec || overBlocks)) {
    const blocks = b ? `; in blocks p50 ${b.p50}, p95 ${b.p95}, max ${b.max}` : '';
    const limits = `limit --max-head-lag ${h.maxLagSec} s${h.maxLagBlocks === undefined ? '' : ` and --max-head-lag-blocks ${h.maxLagBlocks} on ${h.blockTimeSec} s blocks`}`;
    const by = overSec ? `${s.max} s` : `${b?.max ?? 0} blocks (${s.max} s)`;
    return { ...check, failure: `head lag: the endpoint trailed the reference by up to ${by} (${limits}; p50 ${s.p50} s, p95 ${s.p95} s${blocks}; ${h.judged ?? 0} samples judged)${h.worst ? `, e.g. ${h.worst}` : ''}` };
  }
  if (h.inconclusive !== undefined) return { ...check, inconclusive: `head lag: ${h.inconclusive}` };
  if (h.notJudged !== undefined) return { ...check, skipped: `head lag not judged (${h.notJudged})` };
  return check;
}

/** A share in percent with two significant digits: 1 in 150 is 0.67%, 1 in 10,000 is 0.01%. */
function share(n: number, of: number): string {
  return of > 0 ? `${Number(((100 * n) / of).toPrecision(2))}%` : 'n/a';
}

/** A failed threshold: "eth_getBlockByHash: p(95) 521.1 ms (threshold <500)", "…: failure rate 3.12% (threshold < 1%)". */
function thresholdFailure(t: LoadReport['thresholds'][number]): string {
  const m = /^(latency|failed)_(.+)$/.exec(t.metric);
  const [stat, limit] = t.expression.split(/(?=[<>=!])/, 2);
  const failed = m?.[1] === 'failed';
  const value = t.value === undefined ? 'n/a' : failed ? `${Math.round(t.value * 10000) / 100}%` : `${t.value}${m ? ' ms' : ''}`;
  const rate = /^rate\s*([<>=!]+)\s*([\d.]+)$/.exec(t.expression);
  const threshold = failed && rate ? `${rate[1]} ${Math.round(Number(rate[2]) * 10000) / 100}%` : (limit ?? '');
  return `${m?.[2] ?? t.metric}: ${failed ? 'failure rate' : (stat ?? t.expression)} ${value} (threshold ${threshold})`;
}

export interface SampledFault {
  method: string;
  notServed: boolean;
  text: string;
}

/** What sampling found that fails a run by itself: a method not served (whose reason sums up what its entries
 * answered), answers that contradicted their entry's kind. */
export function sampledFaults(report: Pick<LoadReport, 'corpus'>): SampledFault[] {
  return Object.entries(report.corpus.methods ?? {}).flatMap(([method, c]): SampledFault[] =>
    c.status === 'not served'
      ? [{ method, notServed: true, text: `${method} not served: ${c.reason ?? ''}` }]
      : (c.findings ?? []).map((f) => ({
          method,
          notServed: false,
          text: `${method}: ${f.count} ${f.kind} ${f.count === 1 ? 'entry' : 'entries'} answered ${f.cls}${f.code === undefined ? '' : ` ${f.code}`} at sampling, e.g. ${f.example}`,
        })),
  );
}
