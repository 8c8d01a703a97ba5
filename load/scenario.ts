// The k6 script (bundled by bundle.ts). Every iteration sends one corpus entry of its scenario's method
// (or of the mix's next method), classifies the answer and feeds the scenario's metrics. The plan is
// compiled in as __PLAN__; the URL arrives in the environment only, and no metric carries it (see the
// plan's systemTags).
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import { type Classification, classify } from './classify.ts';
import type { Corpus, CorpusEntry } from './corpus.ts';
import { CLASSES, MIX_SCENARIO, metricName, type RpcClass, type RpcMethod, SUCCESS_CLASSES, type Subject } from './methods.ts';
import type { Plan } from './profiles.ts';
import { shapeFault } from './shapes.ts';

declare const __PLAN__: Plan;
const plan = __PLAN__;
export const options = plan.options;

const url = __ENV['RPC_CERTIFY_URL'] ?? '';
const corpusPath = __ENV['RPC_CERTIFY_CORPUS'] ?? '';
const summaryPath = __ENV['RPC_CERTIFY_SUMMARY'] ?? '';
/** k6's error_code for a request that ran out of time. */
const K6_TIMEOUT = 1050;

interface Request {
  entries: CorpusEntry[];
  params: { headers: Record<string, string>; tags: Record<string, string>; timeout: string };
  faultLogged: boolean;
}
interface Metrics {
  latency: Trend;
  failed: Rate;
  calls: Record<RpcClass, Counter>;
}

// Init context: one shared, read-only copy of the corpus for all VUs, and the metrics k6 must know up front.
const requests = Object.fromEntries(
  plan.methods.map((m): [RpcMethod, Request] => [
    m,
    {
      entries: new SharedArray(m, () => (JSON.parse(open(corpusPath)) as Corpus).entries[m]) as unknown as CorpusEntry[],
      params: { headers: { 'Content-Type': 'application/json' }, tags: { name: m, rpc_method: m }, timeout: plan.requestTimeout },
      faultLogged: false,
    },
  ]),
) as Record<RpcMethod, Request>;
const metrics = Object.fromEntries(
  plan.scenarios.map(({ name }): [Subject, Metrics] => [
    name,
    {
      latency: new Trend(metricName.latency(name), true),
      failed: new Rate(metricName.failed(name)),
      calls: Object.fromEntries(CLASSES.map((c) => [c, new Counter(metricName.calls(name, c))])) as Record<RpcClass, Counter>,
    },
  ]),
) as Record<Subject, Metrics>;

export function call(): void {
  const i = exec.scenario.iterationInTest;
  const subject = exec.scenario.name as Subject;
  const method = subject === MIX_SCENARIO ? (plan.mix[i % plan.mix.length] as RpcMethod) : subject;
  const r = requests[method];
  const entry = r.entries[i % r.entries.length];
  if (!entry) return;
  const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id: i, method, params: entry.params }), r.params);
  const body = typeof res.body === 'string' ? res.body : null;
  const verdict = validated(method, r, classify({ status: res.status, body, timedOut: res.error_code === K6_TIMEOUT }, entry), i);

  const m = metrics[subject];
  const ok = SUCCESS_CLASSES.includes(verdict.cls);
  m.calls[verdict.cls].add(1, verdict.code === undefined ? {} : { code: String(verdict.code) });
  m.failed.add(!ok);
  if (ok) m.latency.add(res.timings.duration);
}

/** Schema-checks one successful answer in plan.validateEvery; a fault turns it into `invalid`. */
function validated(method: RpcMethod, r: Request, verdict: Classification, i: number): Classification {
  if (!verdict.envelope || i % plan.validateEvery !== 0) return verdict;
  const fault = shapeFault(method, verdict.envelope);
  if (!fault) return verdict;
  if (!r.faultLogged) console.warn(`rpc-certify invalid ${method} ${fault}`); // once per VU and method; Node collects it
  r.faultLogged = true;
  return { cls: 'invalid' };
}

/** k6's end-of-test data goes to a file for the Node side; nothing to stdout. */
export function handleSummary(data: unknown): Record<string, string> {
  return { [summaryPath]: JSON.stringify(data) };
}
