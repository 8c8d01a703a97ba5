// The classes every answer under load is sorted into, and the k6 metric names built from them (the methods
// themselves: core/methods.ts). Pure: imported by the k6 scenario and by the Node side that reads k6's output.
import type { RpcMethod } from '../../core/methods.ts';

export const CLASSES = [
  'ok', // a value, as expected
  'ok_null', // null, as expected (a miss)
  'ok_error', // the JSON-RPC error the corpus expects (a revert)
  'null_unexpected',
  'rpc_error',
  'rate_limited',
  'http_error',
  'timeout',
  'invalid', // unparseable, or a value that breaks its schema (validation is sampled)
  'archive', // null or an error for a lookup whose block left the declared near-head window (§8) since sampling: archive not served, allowed; counted apart, neither success nor failure
  'wrong', // a well-formed answer that says something false: another id, a value where a miss's null or a revert's error is due, not the answer sampled, outside its bounds; any one fails the run (report/verdict.ts)
] as const;
export type RpcClass = (typeof CLASSES)[number];

/** Classes whose latency counts: the endpoint answered what the corpus expects. */
export const SUCCESS_CLASSES: readonly RpcClass[] = ['ok', 'ok_null', 'ok_error'];
/** The classes a failure rate is taken over: every answer but those the endpoint need not give (archive, §8). */
export const JUDGED_CLASSES: readonly RpcClass[] = CLASSES.filter((c) => c !== 'archive');
/** The classes k6 counts: `ok` is the histogram's count less the other successes (summary.ts), so that the commonest answer costs one metric sample. */
export const COUNTED_CLASSES: readonly RpcClass[] = CLASSES.filter((c) => c !== 'ok');

/** The scenario that drives a weighted mix of all methods (capacity profile). */
export const MIX_SCENARIO = 'mix';
/** What a k6 scenario and its metrics are about: one method, or the mix. */
export type Subject = RpcMethod | typeof MIX_SCENARIO;

/** The k6 scenario that samples eth_blockNumber once a second per instance (head freshness). */
export const HEAD_SCENARIO = 'head';

/**
 * k6 metric names, per subject: the latency histogram (a Counter per group of buckets, histogram.ts, whose tag `b`
 * is the bucket; a successful answer's one sample), a Counter per class but `ok` (derived: summary.ts), a Gauge
 * holding the latency's exact min and max, and the counts of fully validated and of parsed answers. `latency` and
 * `failed` name the thresholds judge.ts computes from the merged result (k6 records no such metrics).
 */
export const metricName = {
  latency: (s: Subject) => `latency_${s}`,
  failed: (s: Subject) => `failed_${s}`,
  calls: (s: Subject, c: RpcClass) => `calls_${c}_${s}`,
  histogram: (s: Subject, group: number) => `hist_${s}_${group}`,
  bounds: (s: Subject) => `latency_bounds_${s}`,
  validated: (s: Subject) => `validated_${s}`,
  parsed: (s: Subject) => `parsed_${s}`,
  headChecks: 'head_checks',
  /** Iterations k6/x/rpccertify did whole in Go (k6ext/send.go), reported once a second: the last second's are not in it. */
  inGo: 'iterations_in_go',
  headRegressions: 'head_regressions',
  /** Iterations of the scenario's script that threw (scenario.ts): their answers are in no other count. */
  scriptErrors: 'script_errors',
  /** A Trend: the deepest regression seen, in blocks (its max). */
  headRegressionDepth: 'head_regression_depth',
};
