// The report of several endpoints certified side by side (framework/side-by-side.ts): each endpoint's own report,
// whole, and what a person choosing between them reads first: the matrix endpoint × method (verdict, judged share),
// the checks on which they differ, where their answers disagree (quorum/*), their heads against the freshest, and
// every reason each did not pass. One value, which the JSON (schemas/files/conformance-side-by-side.json), the
// JUnit (one suite per endpoint) and the HTML render.
import schema from '../../schemas/files/conformance-side-by-side.json' with { type: 'json' };
import conformanceSchema from '../../schemas/files/conformance-report.json' with { type: 'json' };
import { EXIT } from '../../core/node/errors.ts';
import { reportHeader } from '../../core/node/report-header.ts';
import { schemaFaults } from '../../core/node/schema-faults.ts';
import type { ReportHeader } from '../../core/report-header.ts';
import type { HeadsAt, SideBySideResult } from '../framework/side-by-side.ts';
import { assembleReport, type Judging } from './assemble.ts';
import { type ConformanceReport, methodsOf, type Outcome, outcomeOf, VERDICT_EXIT, type Verdict } from './model.ts';
import { AGREE_BY_CONSTRUCTION } from '../../core/vote.ts';

/** An endpoint's verdict: its run's, or unusable (it could not be certified at all: exit 2). */
export type EndpointVerdict = Verdict | 'unusable';

/** Worst last: the run's verdict is its worst endpoint's (a proven failure outranks what could not be judged). */
const RANK: readonly EndpointVerdict[] = ['pass', 'inconclusive', 'unusable', 'fail', 'incomplete'];
const EXIT_OF: Record<EndpointVerdict, number> = { ...VERDICT_EXIT, unusable: EXIT.unusable };

/** A method's cell of the matrix: fail (a failure that fails the run), advisory (an advisory failure), inconclusive (judged below the floor), pass. */
export interface MethodCell {
  method: string;
  verdict: 'pass' | 'fail' | 'advisory' | 'inconclusive' | 'not judged';
  judged: number;
  of: number;
}

export interface EndpointRow {
  name: string;
  /** Redacted. */
  endpoint: string;
  verdict: EndpointVerdict;
  exitCode: number;
  /** The judged share (absent for an unusable endpoint). */
  judged?: { judged: number; of: number; share: number };
  methods: MethodCell[];
  /** Every reason it did not pass: the verdict's own, then each check that failed, was advisory or inconclusive. */
  notPassed: Array<{ id?: string; outcome: Outcome | 'verdict' | 'unusable'; reason: string }>;
  /** Its report, whole (absent for an unusable endpoint). */
  report?: ConformanceReport;
  /** Why it could not be certified at all. */
  unusable?: string;
}

export interface SideBySideReport extends ReportHeader<'rpc-certify-conformance-side-by-side', 1> {
  startedAt: string;
  finishedAt: string;
  summary: { verdict: EndpointVerdict; exitCode: number; endpoints: number; worst: string[] };
  /** The endpoint whose discovery gave every run its targets, or the --targets file. */
  targetsFrom?: string;
  chain?: SideBySideResult['chain'];
  heads: { start: HeadsAt; end: HeadsAt };
  endpoints: EndpointRow[];
  /** Checks whose outcome is not the same on every usable endpoint. */
  differing: Array<{ id: string; method: string; outcomes: Array<{ name: string; outcome: Outcome }> }>;
  /** What a majority is worth. */
  quorumNote: string;
}

export function assembleSideBySide(result: SideBySideResult, judging: Judging, startedAt: string): SideBySideReport {
  const endpoints = result.runs.map((r): EndpointRow => {
    if (r.notRun) return { name: r.name, endpoint: r.endpoint, verdict: 'incomplete', exitCode: EXIT_OF.incomplete, methods: [], notPassed: [{ outcome: 'verdict', reason: r.notRun }] };
    if (!r.result) return { name: r.name, endpoint: r.endpoint, verdict: 'unusable', exitCode: EXIT_OF.unusable, methods: [], notPassed: [{ outcome: 'unusable', reason: r.unusable ?? 'not run' }], ...(r.unusable ? { unusable: r.unusable } : {}) };
    const report = assembleReport(r.result, judging);
    const s = report.summary;
    return {
      name: r.name,
      endpoint: r.endpoint,
      verdict: s.verdict,
      exitCode: EXIT_OF[s.verdict],
      judged: { judged: s.judged.judged, of: s.judged.of, share: s.judged.share },
      methods: methodCells(report),
      notPassed: [
        ...(s.verdictReason ? [{ outcome: 'verdict' as const, reason: s.verdictReason }] : []),
        ...report.checks.flatMap((c) => {
          const o = outcomeOf(c, report.run.strict);
          return o === 'fail' || o === 'unexpected-pass' || o === 'advisory' || o === 'inconclusive' ? [{ id: c.id, outcome: o, reason: c.reason ?? '' }] : [];
        }),
      ],
      report,
    };
  });
  const verdict = endpoints.reduce<EndpointVerdict>((w, e) => (RANK.indexOf(e.verdict) > RANK.indexOf(w) ? e.verdict : w), 'pass');
  return {
    ...reportHeader('rpc-certify-conformance-side-by-side', 1),
    startedAt,
    finishedAt: new Date().toISOString(),
    summary: { verdict, exitCode: endpoints.length ? EXIT_OF[verdict] : EXIT.unusable, endpoints: endpoints.length, worst: endpoints.filter((e) => e.verdict === verdict).map((e) => e.name) },
    ...(result.targetsFrom ? { targetsFrom: result.targetsFrom } : {}),
    ...(result.chain ? { chain: result.chain } : {}),
    heads: result.heads,
    endpoints,
    differing: differing(endpoints),
    quorumNote: AGREE_BY_CONSTRUCTION,
  };
}

function methodCells(report: ConformanceReport): MethodCell[] {
  const j = report.summary.judged;
  const strict = report.run.strict;
  return methodsOf(report).map((method) => {
    const mine = report.checks.filter((c) => c.method === method);
    const outcomes = mine.map((c) => outcomeOf(c, strict));
    // A suite of advisory checks only (quorum/*) has no share of the fatal ones: its own checks are counted.
    const per = j.perMethod.find((m) => m.method === method && m.of > 0) ?? { judged: mine.filter((c) => c.verdict === 'pass' || c.verdict === 'fail').length, of: mine.filter((c) => !(c.verdict === 'skip' && c.inapplicable)).length };
    const verdict = outcomes.some((o) => o === 'fail' || o === 'unexpected-pass') ? 'fail' : outcomes.includes('advisory') ? 'advisory' : per.of === 0 ? 'not judged' : per.judged === 0 || per.judged / per.of < j.floor ? 'inconclusive' : 'pass';
    return { method, verdict, judged: per.judged, of: per.of };
  });
}

function differing(rows: EndpointRow[]): SideBySideReport['differing'] {
  // Each check's outcome per endpoint, in one pass over every report, in the first report's order.
  const byId = new Map<string, SideBySideReport['differing'][number]>();
  for (const r of rows) {
    for (const c of r.report?.checks ?? []) {
      const row = byId.get(c.id) ?? { id: c.id, method: c.method, outcomes: [] };
      row.outcomes.push({ name: r.name, outcome: outcomeOf(c, r.report!.run.strict) });
      byId.set(c.id, row);
    }
  }
  return [...byId.values()].filter((d) => new Set(d.outcomes.map((o) => o.outcome)).size > 1);
}

/** The schema faults of a side-by-side report as written; empty when valid. */
export const sideBySideFaults = schemaFaults(schema, [conformanceSchema]);

/** "a 1 ahead": an endpoint's head against the freshest of the same instant. */
export function headText(h: HeadsAt['heads'][number]): string {
  if (h.head === undefined) return `${h.name}: no head (${h.error ?? 'no answer'})`;
  return `${h.name}: block ${h.head}${h.chainId ? ` of chain ${BigInt(h.chainId)}` : ''}${h.behind ? `, ${h.behind} behind the freshest` : ' (the freshest)'}`;
}
