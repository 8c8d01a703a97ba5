// The conformance report: one JSON value (schemas/files/conformance-report.json) that the JSON, JUnit and
// HTML writers all render, so the three can never disagree about a verdict.
import { EXIT } from '../../core/node/errors.ts';
import type { ArchiveLookup, CheckResult, NotHere } from '../framework/check.ts';
import type { ExpectationNote } from '../framework/expectations.ts';
import type { RunMeta } from '../framework/runner.ts';
import type { Targets } from '../../core/targets.ts';
import type { ReportHeader } from '../../core/report-header.ts';
import { type NotServedMethod, notServedMethods } from './not-served.ts';
import { NO_ANSWER } from '../../core/node/rpc-client.ts';

/** The header of conformance.json (core/report-header.ts); 2 since it names its kind. */
export interface ConformanceReport extends ReportHeader<'rpc-certify-conformance', 2> {
  run: ReportRun;
  targets?: Targets;
  summary: {
    total: number;
    /** Passed checks the --expect file does not expect to fail. */
    pass: number;
    /** Every failed check: fatalFailures + advisoryFailures + expectedFailures. */
    fail: number;
    skip: number;
    inconclusive: number;
    fatalFailures: number;
    /** Failures that do not fail the run (advisory layer without --strict). */
    advisoryFailures: number;
    /** Failures the --expect file lists: they do not fail the run. */
    expectedFailures: number;
    /** Checks the --expect file lists as failing that passed: they fail the run (the file is out of date). */
    unexpectedPasses: number;
    /** Passes that judged only part of what their title covers (CheckResult.partial, a request budget), among `pass`. */
    partial: number;
    /** Their ids, when there are any. */
    partialChecks?: string[];
    verdict: Verdict;
    /** Why the verdict is not a plain pass or fail: the methods that never answered, the inconclusive share. */
    verdictReason?: string;
    /** Methods that were asked and never answered (timeouts, resets, refused connections, rate limits). */
    unansweredMethods?: string[];
    /**
     * Methods the endpoint does not serve (not-served.ts: every answer to every call said the method is not there).
     * One not `expected` fails the run, whatever its checks' outcomes.
     */
    notServed?: NotServedMethod[];
    /**
     * Lookups older than the declared near-head window (§8): one per windowed method, listed with the answer
     * (archive not served, or served), never judged. Absent without a declared window.
     */
    archive?: Array<ArchiveLookup & { method: string }>;
    /** The spec's methods (and the service-wide checks) a --methods subset left out: the verdict says nothing of them. */
    notCertified?: string[];
    /** How much of what this chain can have was judged: part of the verdict (below the floor, never a pass). */
    judged: JudgedShare;
  };
  checks: CheckResult[];
}

/** The report's `run`: the run's own record (RunMeta, declared once in the runner) and what the report adds. */
export type ReportRun = RunMeta & {
  /** Wall clock: may be off by a clock step. */
  durationMs: number;
  /** --network, by name. */
  network?: string;
  strict: boolean;
};

/** Each key of T, 'required' or 'optional' as T declares it: a table the compiler holds to the type. */
export type Presence<T> = { [K in keyof T]-?: object extends Pick<T, K> ? 'optional' : 'required' };

/** ReportRun's fields at run time: the test that the report schema's `run` has exactly these (test/conformance/report.test.ts) reads it. */
export const REPORT_RUN_FIELDS: Presence<ReportRun> = {
  endpoint: 'required',
  startedAt: 'required',
  finishedAt: 'required',
  durationMs: 'required',
  network: 'optional',
  chainId: 'optional',
  clientVersion: 'optional',
  headBefore: 'optional',
  headAfter: 'optional',
  strict: 'required',
  requestCount: 'required',
  methods: 'required',
  complete: 'required',
  incompleteReason: 'optional',
  expectations: 'optional',
  deadlineMs: 'optional',
  deadlineReached: 'optional',
  reference: 'optional',
  nearHeadWindow: 'optional',
  reorgs: 'optional',
  rateLimit: 'optional',
};

/**
 * Fatal checks judged (verdict pass or fail) over the fatal checks this chain can have: those whose skip says the
 * chain cannot have what they judge (CheckResult.inapplicable) are left out and listed; every other skip and every
 * inconclusive check counts as not judged, grouped by its reason.
 */
export interface JudgedShare {
  judged: number;
  of: number;
  /** judged / of (1 when of is 0: nothing fatal was asked of this chain). */
  share: number;
  /** The --min-judged floor the share was held to (a share, 0..1). */
  floor: number;
  /** Per method: judged of can-have, and how many were left out as not on this chain (or run). */
  perMethod: Array<{ method: string; judged: number; of: number; leftOut: number }>;
  /** Fatal checks this chain cannot have, left out of `of`, with why and the premise of the closed list. */
  inapplicable: Array<{ id: string; reason: string; premise: NotHere }>;
  /** The fatal checks not judged, by reason (most checks first). */
  notJudged: Array<{ reason: string; verdict: 'skip' | 'inconclusive'; checks: string[] }>;
}

/**
 * The default --min-judged floor: 90% of the fatal checks this chain can have. Measured (docs/conformance.md): the
 * embedded default and geth --dev judge all of them (100%), a transaction-less anvil 55%; a chain with transactions
 * but without one class of target (no contract creation, no log, no failed transaction) loses a few checks each,
 * which a 90% floor still lets pass while a chain that cannot show a third of the catalogue cannot.
 */
export const MIN_JUDGED = 0.9;

/**
 * pass: every fatal check ran and none failed. fail: a fatal check failed, an --expect entry passed, or a method is
 * not served without the --expect file accounting for every failure of it.
 * inconclusive: too much could not be tested or judged (a method never answered, more than INCONCLUSIVE_SHARE of
 * the fatal checks inconclusive, or a judged share below the --min-judged floor), so neither verdict holds. incomplete: the run was interrupted.
 */
export type Verdict = 'pass' | 'fail' | 'inconclusive' | 'incomplete';

/** Above this share of inconclusive fatal checks, a run without failures cannot pass. */
export const INCONCLUSIVE_SHARE = 0.05;

/** Exit codes of a conformance run, by verdict. */
export const VERDICT_EXIT: Record<Verdict, number> = { pass: EXIT.pass, fail: EXIT.fail, inconclusive: EXIT.inconclusive, incomplete: EXIT.interrupted };

/**
 * How a check counts for this run: 'advisory' is an advisory-layer failure that --strict would make fatal;
 * 'expected' a failure the --expect file lists; 'unexpected-pass' a pass of a check it lists as failing.
 */
export type Outcome = 'pass' | 'fail' | 'unexpected-pass' | 'advisory' | 'expected' | 'skip' | 'inconclusive';

/** Worst first: the order the HTML report lists sections in and ranks coverage cells by. */
export const OUTCOMES: readonly Outcome[] = ['fail', 'unexpected-pass', 'advisory', 'inconclusive', 'expected', 'skip', 'pass'];

export function outcomeOf(check: Pick<CheckResult, 'layer' | 'verdict' | 'expectation' | 'reason' | 'violations' | 'partial'>, strict: boolean): Outcome {
  // A pass in part of a check listed as failing is not a refutation: the failure may sit in what it left out
  // (a block over the receipts budget). It is named as not judged in full (expectedButUnjudged), not counted against the file.
  if (check.verdict === 'pass') return check.expectation?.kind === 'fail' && !check.partial ? 'unexpected-pass' : 'pass';
  if (check.verdict !== 'fail') return check.verdict;
  // A scoped entry (its `match`) explains only the deviation it names: another failure of the check stands.
  if (explains(check.expectation, check)) return 'expected';
  return check.layer === 'advisory' && !strict ? 'advisory' : 'fail';
}

/**
 * A failure is the expected one when the file lists it as failing and, if the entry is scoped, EVERY violation
 * the check found matches (one more violation of another kind, or on another block, is not the one described).
 */
export function explains(note: ExpectationNote | undefined, check: Pick<CheckResult, 'reason' | 'violations'>): boolean {
  if (note?.kind !== 'fail') return false;
  if (note.match === undefined) return true;
  const match = new RegExp(note.match);
  return (check.violations ?? [check.reason ?? '']).every((v) => match.test(v));
}

/** The judged share of a run's checks (JudgedShare), held to `floor`. */
export function judgedShare(checks: CheckResult[], strict: boolean, floor = MIN_JUDGED): JudgedShare {
  const fatal = checks.filter((c) => strict || c.layer !== 'advisory');
  const notHere = (c: CheckResult): c is CheckResult & { inapplicable: NotHere } => c.verdict === 'skip' && c.inapplicable !== undefined;
  const applicable = fatal.filter((c) => !notHere(c));
  const isJudged = (c: CheckResult) => c.verdict === 'pass' || c.verdict === 'fail';
  const groups = new Map<string, JudgedShare['notJudged'][number]>();
  for (const c of applicable.filter((x) => !isJudged(x))) {
    const verdict = c.verdict as 'skip' | 'inconclusive';
    const reason = c.reason ?? '(no reason given)';
    const key = `${verdict}\n${reason}`;
    const group = groups.get(key) ?? { reason, verdict, checks: [] };
    group.checks.push(c.id);
    groups.set(key, group);
  }
  const methods = [...new Set(fatal.map((c) => c.method))];
  const judged = applicable.filter(isJudged).length;
  return {
    judged,
    of: applicable.length,
    share: applicable.length === 0 ? 1 : judged / applicable.length,
    floor,
    perMethod: methods.map((method) => {
      const mine = applicable.filter((c) => c.method === method);
      return { method, judged: mine.filter(isJudged).length, of: mine.length, leftOut: fatal.filter((c) => c.method === method && notHere(c)).length };
    }),
    inapplicable: fatal.filter(notHere).map((c) => ({ id: c.id, reason: c.reason ?? '', premise: c.inapplicable })),
    notJudged: [...groups.values()].sort((a, b) => b.checks.length - a.checks.length),
  };
}

/** "61 of 111 (55%)": a share as a reader checks it. Rounded down, so a share just under the floor never prints as the floor. */
export function percent(share: number): string {
  return `${Math.floor(share * 1000) / 10}%`;
}

/** Why a share below its floor is not a pass: the first groups of what was not judged, each with its count. */
function belowFloor(j: JudgedShare, targets?: Targets): string {
  const groups = j.notJudged.slice(0, 3).map((g) => `${g.checks.length} × ${g.reason}`);
  const more = j.notJudged.length > 3 ? `; and ${j.notJudged.length - 3} more reason(s)` : '';
  // The cause a reader looks for first, when discovery saw it: a chain with nothing to judge most checks on.
  const quiet = targets && Object.keys(targets.txByType).length === 0 && !targets.multiTxBlock && !targets.successTx ? `no transaction on this chain within the ${targets.scanned.blocks} block(s) walked: ` : '';
  return `${quiet}judged ${j.judged} of the ${j.of} fatal checks this chain can have (${percent(j.share)}), below the --min-judged floor of ${percent(j.floor)}: not judged: ${groups.join('; ')}${more}`;
}

/** The methods judged below the floor (or not at all, whatever the floor), as one reason. */
function thinMethods(j: JudgedShare): string[] {
  const thin = j.perMethod.filter((m) => m.of > 0 && (m.judged === 0 || m.judged / m.of < j.floor));
  if (thin.length === 0) return [];
  return [`judged below the --min-judged floor of ${percent(j.floor)} for ${thin.map((m) => `${m.method} (${m.judged} of ${m.of})`).join(', ')}: those methods are not certified by this run`];
}

export function summarize(checks: CheckResult[], strict: boolean, complete: boolean, opts: { minJudged?: number; targets?: Targets; referenceFailed?: string } = {}): ConformanceReport['summary'] {
  const count = (o: Outcome) => checks.filter((c) => outcomeOf(c, strict) === o).length;
  const fatalFailures = count('fail');
  const advisoryFailures = count('advisory');
  const expectedFailures = count('expected');
  const unexpectedPasses = count('unexpected-pass');
  const fatal = checks.filter((c) => strict || c.layer !== 'advisory');
  const inconclusiveFatal = fatal.filter((c) => c.verdict === 'inconclusive').length;
  const unanswered = unansweredMethods(checks);
  const notServed = notServedMethods(checks, (c) => outcomeOf(c, strict) === 'expected');
  const judged = judgedShare(checks, strict, opts.minJudged);
  const reasons = [
    ...(unanswered.length > 0 ? [`never answered: ${unanswered.join(', ')}`] : []),
    // A reference that stopped answering judged nothing after that: named, never a verdict on the endpoint.
    ...(opts.referenceFailed ? [`the reference (--reference-url) failed during the run (${opts.referenceFailed}): the checks that needed it are inconclusive`] : []),
    ...(inconclusiveFatal > fatal.length * INCONCLUSIVE_SHARE ? [`${inconclusiveFatal} of ${fatal.length} fatal checks inconclusive (more than ${INCONCLUSIVE_SHARE * 100}%)`] : []),
    // Coverage is part of the verdict: a certificate that judged half the catalogue must not read like one that judged it all.
    ...(judged.share < judged.floor ? [belowFloor(judged, opts.targets)] : []),
    // Whatever the floor (--min-judged 0) and even when the chain can have none of them: a run that judged no fatal check judged nothing.
    ...(judged.judged === 0 && judged.share >= judged.floor ? [`judged none of the ${judged.of} fatal checks this chain can have: a run that judged nothing never passes`] : []),
    // The floor holds for each method too: a certificate names each method, and a run that judged most of the
    // catalogue but 2 of a method's 5 checks (its other calls stalled) says nothing of that method.
    ...(judged.judged > 0 ? thinMethods(judged) : []),
  ];
  // The one place the run's verdict is decided. A run cut short proves nothing either way, whatever its
  // failures so far; a failure stands even when other methods could not be tested; a pass needs answers.
  // A method not served fails the run even where its checks' failures are advisory or some are excused: only an
  // --expect file accounting for all of them makes it a known gap.
  const failed = fatalFailures > 0 || unexpectedPasses > 0 || notServed.some((m) => !m.expected);
  const verdict: Verdict = !complete ? 'incomplete' : failed ? 'fail' : reasons.length > 0 ? 'inconclusive' : 'pass';
  const partial = checks.filter((c) => c.verdict === 'pass' && c.partial).map((c) => c.id);
  const archive = checks.flatMap((c) => (c.archive ? [{ method: c.method, ...c.archive }] : []));
  return {
    total: checks.length,
    pass: count('pass'),
    fail: fatalFailures + advisoryFailures + expectedFailures,
    skip: count('skip'),
    inconclusive: count('inconclusive'),
    fatalFailures,
    advisoryFailures,
    expectedFailures,
    unexpectedPasses,
    partial: partial.length,
    ...(partial.length > 0 ? { partialChecks: partial } : {}),
    verdict,
    ...(reasons.length > 0 ? { verdictReason: reasons.join('; ') } : {}),
    ...(unanswered.length > 0 ? { unansweredMethods: unanswered } : {}),
    ...(notServed.length > 0 ? { notServed } : {}),
    ...(archive.length > 0 ? { archive } : {}),
    judged,
  };
}

/** Checks an --expect entry lists as failing that ran to no full verdict: skipped, inconclusive, or passed only in part. */
export function expectedButUnjudged(checks: CheckResult[]): Array<{ id: string; how: string }> {
  return checks
    .filter((c) => c.expectation?.kind === 'fail' && (c.verdict === 'skip' || c.verdict === 'inconclusive' || (c.verdict === 'pass' && c.partial)))
    .map((c) => ({ id: c.id, how: c.verdict === 'pass' ? 'passed in part' : c.verdict }));
}


/** Methods their own checks asked at least once and that never answered any of those calls. */
export function unansweredMethods(checks: CheckResult[]): string[] {
  const answered = new Map<string, boolean>();
  for (const { method, evidence } of checks) {
    // The reference node's answers (--reference-url) are not the endpoint's.
    for (const ev of evidence.filter((e) => !e.reference && e.peer === undefined && (e.request as { method?: unknown } | null)?.method === method)) {
      const none = ev.fault !== undefined && (NO_ANSWER as readonly string[]).includes(ev.fault.split(':', 1)[0] ?? '');
      answered.set(method, (answered.get(method) ?? false) || !none);
    }
  }
  return [...answered].filter(([, yes]) => !yes).map(([m]) => m);
}

/** The methods of the run in their configured order, then any a check reported that the list lacks. */
export function methodsOf(report: ConformanceReport): string[] {
  return [...new Set([...report.run.methods, ...report.checks.map((c) => c.method)])];
}
