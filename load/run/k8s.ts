// The same test for k6-operator on Kubernetes: a ConfigMap with the bundled script and the corpus, a
// TestRun whose `parallelism` splits it into execution segments, and run.json, which `k8s merge` needs to
// turn the pods' logs (each ends with its shard, shard.ts) into one report. The endpoint URL, key
// included, goes into a Secret the user creates: no file written here holds it.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { redactUrl, registerUrlSecrets } from '../../core/redact.ts';
import { K6_VERSION } from '../../core/node/tools/k6.ts';
import { sha256Hex } from '../../core/fingerprint.ts';
import { answerDigest } from '../shared/answer.ts';
import { bundleScenario } from '../plan/bundle.ts';
import type { Plan } from '../shared/profiles.ts';
import { buildReport, corpusInfo } from '../report/report.ts';
import { conclude, expectedFailures, type LoadOutcome, prepareTest, readBaseline, type TestOptions, usage } from './run.ts';
import { findingsIn, type Merged, mergeShards, shardsIn } from '../shared/shard.ts';
import type { CorpusInfo } from '../shared/load-report.ts';

export interface K8sOptions extends TestOptions {
  /** Where to sample the corpus from (not needed with --corpus); the pods get the URL from the Secret. */
  url?: string;
  parallelism: number;
  out: string;
  name?: string;
  namespace?: string;
  image?: string;
  log: (line: string) => void;
}

/** What `k8s merge` needs besides the pods' logs. */
export interface RunDescriptor {
  kind: 'rpc-certify-load-run';
  version: 1;
  endpoint: string;
  /** The digest every pod's shard must carry (answer.ts over the plan). */
  planDigest: string;
  plan: Plan;
  corpus: CorpusInfo;
  k6: { version: string; source: 'image' };
}

const K8S_FILES = { manifests: 'k8s.yaml', run: 'run.json' };
/** The operator mounts the script's ConfigMap here. */
const MOUNT = '/test';
/** Kubernetes refuses a ConfigMap over 1 MiB. */
const CONFIGMAP_LIMIT = 1024 * 1024;

export async function writeK8s(opts: K8sOptions): Promise<LoadOutcome> {
  if (opts.url) registerUrlSecrets(opts.url);
  return expectedFailures('k8s', async () => {
    if (opts.profile === 'capacity') usage('the capacity profile steps from this machine, judging each step before the next: use `load --segments`');
    const name = opts.name ?? 'rpc-certify-load';
    if (!/^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/.test(name)) usage(`--name must be a Kubernetes name (lowercase letters, digits, dashes), got "${name}"`);
    const test = await prepareTest(opts, opts.parallelism);
    const { corpus, methods, selected } = await test.corpus(opts.log);
    const plan = test.planFor(methods);
    const script = await bundled(plan);
    const corpusJson = JSON.stringify(corpus);
    if (script.length + corpusJson.length > CONFIGMAP_LIMIT) usage(`the script and corpus take ${script.length + corpusJson.length} bytes, over a ConfigMap's 1 MiB`);

    const descriptor: RunDescriptor = {
      kind: 'rpc-certify-load-run',
      version: 1,
      endpoint: opts.url ? redactUrl(opts.url) : `the Secret ${name}-endpoint`,
      planDigest: answerDigest(plan, sha256Hex),
      plan,
      corpus: corpusInfo(corpus, selected),
      k6: { version: K6_VERSION, source: 'image' },
    };
    const manifests = k8sManifests({ name, namespace: opts.namespace, image: opts.image ?? `grafana/k6:${K6_VERSION.replace(/^v/, '')}`, parallelism: opts.parallelism, script, corpus: corpusJson });
    const paths = { manifests: join(opts.out, K8S_FILES.manifests), run: join(opts.out, K8S_FILES.run) };
    await mkdir(opts.out, { recursive: true });
    await writeFileAtomic(paths.manifests, manifests);
    await writeFileAtomic(paths.run, `${JSON.stringify(descriptor, null, 2)}\n`);
    return { exitCode: 0, reportPaths: [paths.manifests, paths.run], summary: instructions(name, opts, paths) };
  });
}

/** Two YAML documents: the ConfigMap (script and corpus) and the TestRun. */
export function k8sManifests(m: { name: string; namespace?: string | undefined; image: string; parallelism: number; script: string; corpus: string }): string {
  const metadata = (name: string) => ({ name, ...(m.namespace ? { namespace: m.namespace } : {}), labels: { 'app.kubernetes.io/managed-by': 'rpc-certify' } });
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(`${m.name}-script`), data: { 'scenario.js': m.script, 'corpus.json': m.corpus } };
  const testRun = {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: metadata(m.name),
    spec: {
      parallelism: m.parallelism,
      script: { configMap: { name: `${m.name}-script`, file: 'scenario.js' } },
      // The operator adds --quiet and the pod's execution segment; each pod's log ends with its shard.
      arguments: '--no-usage-report',
      runner: {
        image: m.image,
        env: [
          { name: 'RPC_CERTIFY_URL', valueFrom: { secretKeyRef: { name: `${m.name}-endpoint`, key: 'url' } } },
          { name: 'RPC_CERTIFY_CORPUS', value: `${MOUNT}/corpus.json` },
        ],
      },
    },
  };
  return [configMap, testRun].map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
}

async function bundled(plan: Plan): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-k8s-'));
  try {
    await bundleScenario(plan, join(dir, 'scenario.js'));
    return await readFile(join(dir, 'scenario.js'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function instructions(name: string, opts: K8sOptions, paths: { manifests: string; run: string }): string {
  const ns = opts.namespace ? ` -n ${opts.namespace}` : '';
  return [
    `k8s: ${opts.parallelism} k6-operator runners, ${opts.profile} profile; wrote ${paths.manifests} and ${paths.run}`,
    `1. the endpoint, key included, as a Secret (never in a manifest):`,
    `   kubectl${ns} create secret generic ${name}-endpoint --from-literal=url='https://host/v3/<KEY>'`,
    `2. kubectl${ns} apply -f ${paths.manifests}`,
    `3. when \`kubectl${ns} get testrun ${name}\` shows stage "finished", collect the runners' logs:`,
    `   kubectl${ns} logs -l k6_cr=${name},runner=true --tail=-1 --max-log-requests=${Math.max(5, opts.parallelism)} > ${name}.pods.log`,
    `4. rpc-certify k8s merge ${paths.run} ${name}.pods.log --out reports`,
  ].join('\n');
}

export interface MergeOptions {
  run: string;
  logs: string[];
  out: string;
  baseline?: string;
  tolerance?: number;
}

/** The pods' shards merged into one report, judged on the whole test (thresholds, head, baseline). */
export async function mergeK8s(opts: MergeOptions): Promise<LoadOutcome> {
  return expectedFailures('k8s merge', async () => {
    const descriptor = JSON.parse(await readFile(opts.run, 'utf8').catch(() => usage(`${opts.run}: cannot read it`))) as RunDescriptor;
    if (descriptor?.kind !== 'rpc-certify-load-run' || descriptor.version !== 1) usage(`${opts.run}: not a run.json written by rpc-certify k8s`);
    const texts = await Promise.all(opts.logs.map((f) => readFile(f, 'utf8').catch(() => usage(`${f}: cannot read it`))));
    const shards = texts.flatMap(shardsIn);
    let merged: Merged;
    try {
      merged = mergeShards(shards);
    } catch (e) {
      return usage(`${(e as Error).message}${shards.length ? '' : ` in ${opts.logs.join(', ')}`}`);
    }
    if (merged.plan !== descriptor.planDigest) usage(`the results come from another test than ${opts.run}`);
    const baseline = await readBaseline(opts.baseline, opts.out);
    const report = buildReport({
      endpoint: descriptor.endpoint,
      plan: descriptor.plan,
      corpus: descriptor.corpus,
      corpusFile: K8S_FILES.run,
      k6: descriptor.k6,
      measurement: { merged, timeline: { points: [], codes: {} }, findings: findingsIn(texts.join('\n')), instances: shards.length, exitCode: 0, wallSec: merged.durationMs / 1000 },
    });
    return conclude(report, opts, baseline, { corpus: false });
  });
}
