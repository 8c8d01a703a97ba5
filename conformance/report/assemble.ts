// The conformance report assembled from a run: the run's own record (RunMeta) kept whole as `run`, with what
// the endpoint said about itself redacted, the targets, and the summary judged here. The CLI runs, calls this
// and writes what it returns (index.ts).
import { redactDeep, redactValues, schemaVocabulary } from '../../core/redact.ts';
import reportSchema from '../../schemas/files/conformance-report.json' with { type: 'json' };
import type { RunMeta, RunResult } from '../framework/runner.ts';
import { METHODS } from '../../core/methods.ts';
import { reportHeader } from '../../core/node/report-header.ts';
import { type ConformanceReport, type ReportRun, summarize } from './model.ts';
import { notCertified } from './text.ts';

/** How the run is judged and named: what the report adds to the run's record. */
export interface Judging {
  /** --strict: advisory failures fail the run too. */
  strict: boolean;
  /** --min-judged, as a share 0..1 (default MIN_JUDGED). */
  minJudged?: number;
  /** --network: the network's name, as the user gave it. */
  network?: string;
}

/** What the endpoint said about itself (its preflight answers): redacted like any answer, as the runner redacts the checks' results. */
const SAID = ['chainId', 'clientVersion', 'headBefore', 'headAfter'] as const satisfies ReadonlyArray<keyof RunMeta>;

export function assembleReport(result: RunResult, judging: Judging): ConformanceReport {
  const { targets, checks, ...meta } = result;
  const said = Object.fromEntries(SAID.flatMap((k) => (meta[k] === undefined ? [] : [[k, meta[k]]]))) as Pick<RunMeta, (typeof SAID)[number]>;
  const run: ReportRun = {
    ...meta,
    durationMs: Date.parse(meta.finishedAt) - Date.parse(meta.startedAt),
    ...(judging.network ? { network: judging.network } : {}),
    ...redactValues(said),
    strict: judging.strict,
  };
  const left = notCertified(meta.methods);
  // Redaction works on the values the endpoint supplied (here, and in the runner for every check), never on the
  // report's JSON text, where a key such as `true` would cut through the syntax.
  return {
    ...reportHeader('rpc-certify-conformance', 2),
    run,
    ...(targets ? { targets: redactDeep(targets, reportWords()) } : {}),
    summary: { ...summarize(checks, judging.strict, meta.complete, { ...(judging.minJudged !== undefined ? { minJudged: judging.minJudged } : {}), ...(targets ? { targets } : {}), ...(meta.reference?.failed ? { referenceFailed: meta.reference.failed } : {}) }), ...(left.length ? { notCertified: left } : {}) },
    checks,
  };
}

/** The report's own words (enums, field names, method names): kept whatever the key, so a key such as `found` cannot break it. */
function reportWords(): Set<string> {
  return new Set([...schemaVocabulary(reportSchema), ...METHODS]);
}
