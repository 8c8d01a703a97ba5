// The same test for k6-operator on Kubernetes: ConfigMaps with the bundled script and the corpus (in parts,
// each object within Kubernetes' limits), a TestRun whose `parallelism` splits it into execution segments and
// whose runners use this project's k6 (load/k8s/Dockerfile), and run.json, which `k8s merge` needs to
// turn the pods' logs (each ends with its shard, shard.ts) into one report. The endpoint URL, key
// included, goes into a Secret the user creates: no file written here holds it.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { REDACTED, redactUrl, registerUrlSecrets } from '../../core/redact.ts';
import { K6_EXTENSION, K6_RUNNER_IMAGE, K6_VERSION } from '../../core/node/tools/k6.ts';
import { RECOGNITION_ENV } from '../shared/recognition.ts';
import { corpusPartPath } from '../shared/corpus.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { answerDigest } from '../shared/answer.ts';
import { bundleScenario } from '../plan/bundle.ts';
import type { Plan } from '../shared/profiles.ts';
import { buildReport, corpusInfo } from '../report/report.ts';
import { DEFAULT_MAX_HEAD_LAG_S } from '../report/head-lag.ts';
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
  /** The runners' image (default K6_RUNNER_IMAGE, built by load/k8s/Dockerfile). */
  runnerImage?: string;
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
/** The runner image's recipe: k6 built as core/node/tools/k6.ts builds it (a test holds the two to one version). */
export const RUNNER_DOCKERFILE = fileURLToPath(new URL('../k8s/Dockerfile', import.meta.url));
/** Where the runners find the corpus parts (one projected volume of all the part ConfigMaps). */
const CORPUS_MOUNT = '/corpus';
const CORPUS_FILE = 'corpus.json';

/**
 * What Kubernetes stores, by the bytes of an object's JSON: an object over 1 MiB is refused (a ConfigMap's data
 * is capped at 1 MiB, etcd's request at ~1.5 MiB), and so are one object's annotations over 256 KiB, where a
 * client-side `kubectl apply` keeps a whole copy of the object (last-applied-configuration).
 */
export const K8S_LIMITS = { objectBytes: 1024 * 1024, annotationBytes: 256 * 1024 } as const;
/** A corpus part's text, JSON-encoded: its ConfigMap stays below the annotation limit, metadata included, so any apply takes it. */
const PART_BYTES = 240 * 1024;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  [field: string]: unknown;
}

/** An object's size as the API server measures its limits: the bytes of its JSON. */
export const objectBytes = (o: K8sObject): number => Buffer.byteLength(JSON.stringify(o));

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

    const descriptor: RunDescriptor = {
      kind: 'rpc-certify-load-run',
      version: 1,
      endpoint: opts.url ? redactUrl(opts.url) : `the Secret ${name}-endpoint`,
      planDigest: answerDigest(plan, sha256Hex),
      plan,
      corpus: corpusInfo(corpus, selected),
      k6: { version: K6_VERSION, source: 'image' },
    };
    const objects = k8sObjects({ name, namespace: opts.namespace, image: opts.runnerImage ?? K6_RUNNER_IMAGE, parallelism: opts.parallelism, script, corpus: JSON.stringify(corpus) });
    const over = oversized(objects);
    if (over) usage(over);
    const paths = { manifests: join(opts.out, K8S_FILES.manifests), run: join(opts.out, K8S_FILES.run) };
    await mkdir(opts.out, { recursive: true });
    await writeFileAtomic(paths.manifests, k8sManifests(objects));
    await writeFileAtomic(paths.run, `${JSON.stringify(descriptor, null, 2)}\n`);
    return { exitCode: 0, reportPaths: [paths.manifests, paths.run], summary: instructions(name, opts, paths, objects) };
  });
}

/**
 * The ConfigMap of the bundled script, the corpus in parts (one ConfigMap each, each within the annotation limit
 * however large the corpus), and the TestRun, whose runners mount the parts as one folder and read them in order.
 */
export function k8sObjects(m: { name: string; namespace?: string | undefined; image: string; parallelism: number; script: string; corpus: string }): K8sObject[] {
  const metadata = (name: string) => ({ name, ...(m.namespace ? { namespace: m.namespace } : {}), labels: { 'app.kubernetes.io/managed-by': 'rpc-certify' } });
  const configMap = (name: string, data: Record<string, string>): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(name), data });
  const parts = splitEncoded(m.corpus, PART_BYTES).map((text, i) => configMap(`${m.name}-corpus-${i}`, { [corpusPartPath(CORPUS_FILE, i)]: text }));
  const testRun: K8sObject = {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: metadata(m.name),
    spec: {
      parallelism: m.parallelism,
      script: { configMap: { name: `${m.name}-script`, file: 'scenario.js' } },
      // The operator adds --quiet and the pod's execution segment; each pod's log ends with its shard.
      arguments: '--no-usage-report',
      // The initializer pod (k6 inspect) takes the runner's image, env and volumes, as no spec.initializer is given.
      runner: {
        image: m.image,
        env: [
          { name: 'RPC_CERTIFY_URL', valueFrom: { secretKeyRef: { name: `${m.name}-endpoint`, key: 'url' } } },
          { name: 'RPC_CERTIFY_CORPUS', value: `${CORPUS_MOUNT}/${CORPUS_FILE}` },
          { name: 'RPC_CERTIFY_CORPUS_PARTS', value: String(parts.length) },
          // The runner image holds k6/x/rpccertify (load/k8s/Dockerfile): answers are recognised in Go, as locally.
          { name: RECOGNITION_ENV, value: 'go' },
        ],
        volumes: [{ name: 'corpus', projected: { sources: parts.map((p) => ({ configMap: { name: p.metadata.name } })) } }],
        volumeMounts: [{ name: 'corpus', mountPath: CORPUS_MOUNT, readOnly: true }],
      },
    },
  };
  return [configMap(`${m.name}-script`, { 'scenario.js': m.script }), ...parts, testRun];
}

/** Why Kubernetes would refuse one of the objects (only the script's ConfigMap can grow past 1 MiB), if it would. */
export function oversized(objects: K8sObject[]): string | undefined {
  const over = objects.find((o) => objectBytes(o) >= K8S_LIMITS.objectBytes);
  return over && `the ${over.kind} ${over.metadata.name} takes ${objectBytes(over)} bytes, over Kubernetes' 1 MiB for an object`;
}

/** The objects as one YAML stream, ConfigMaps first (the TestRun's pods mount them). */
export function k8sManifests(objects: K8sObject[]): string {
  return objects.map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
}

/** The text in consecutive parts whose JSON encoding (quotes escaped, UTF-8) takes at most `budget` bytes each; never splits a character. */
export function splitEncoded(text: string, budget: number): string[] {
  const parts: string[] = [];
  let start = 0;
  let size = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const cost = code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c ? 1 : Buffer.byteLength(JSON.stringify(text.slice(i, i + width))) - 2;
    if (size + cost > budget - 2 && i > start) {
      parts.push(text.slice(start, i));
      start = i;
      size = 0;
    }
    size += cost;
    i += width;
  }
  parts.push(text.slice(start));
  return parts;
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

function instructions(name: string, opts: K8sOptions, paths: { manifests: string; run: string }, objects: K8sObject[]): string {
  const ns = opts.namespace ? ` -n ${opts.namespace}` : '';
  const image = opts.runnerImage ?? K6_RUNNER_IMAGE;
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap').length;
  return [
    `k8s: ${opts.parallelism} k6-operator runners, ${opts.profile} profile; wrote ${paths.manifests} (${configMaps} ConfigMaps and the TestRun) and ${paths.run}`,
    `1. the runner image (this project's k6 ${K6_VERSION}), where the cluster pulls from${opts.runnerImage ? '' : ` (the default ${K6_RUNNER_IMAGE} is local: rerun with --runner-image REGISTRY/rpc-certify-k6:${K6_VERSION} to push one, or load it into the nodes, e.g. \`kind load docker-image\`)`}:`,
    `   docker build -t ${image} -f ${RUNNER_DOCKERFILE} ${K6_EXTENSION.dir}${opts.runnerImage ? ` && docker push ${image}` : ''}`,
    `2. the endpoint, key included, as a Secret (never in a manifest):`,
    // The user's own URL with only the key left out (as every report shows it), for them to put the key back into.
    `   kubectl${ns} create secret generic ${name}-endpoint --from-literal=url='${opts.url ? redactUrl(opts.url).replaceAll(REDACTED, '<KEY>') : 'https://host/v3/<KEY>'}'`,
    // Server-side: a client-side apply copies each object into an annotation capped at 256 KiB.
    `3. kubectl${ns} apply --server-side -f ${paths.manifests}`,
    `4. when \`kubectl${ns} get testrun ${name}\` shows stage "finished", collect the runners' logs:`,
    `   kubectl${ns} logs -l k6_cr=${name},runner=true --tail=-1 --max-log-requests=${Math.max(5, opts.parallelism)} > ${name}.pods.log`,
    `5. rpc-certify k8s merge ${paths.run} ${name}.pods.log --out reports`,
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
      // The pods run k6 only: nothing beside them reads the reference's head.
      headLag: { maxLagSec: DEFAULT_MAX_HEAD_LAG_S, notJudged: 'not sampled by a k8s run: its pods run k6 only' },
    });
    return conclude(report, opts, baseline, { corpus: false });
  });
}
