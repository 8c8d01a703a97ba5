// `rpc-certify k8s`: the load test as k6-operator manifests, and `k8s merge`: the pods' results as one report.
import { parseArgs } from 'node:util';
import { redact } from '../core/redact.ts';
import { FRESH_HELP, freshOption, oneLineErrors, print, report, share, TEST_OPTIONS_HELP, testOptions, testOptionSpecs } from './load.ts';
import { endpointOptions, positive, resolveEndpoint } from './networks.ts';
import { UsageError } from '../core/node/errors.ts';
import { K6_RUNNER_IMAGE, K6_VERSION } from '../core/node/tools/k6.ts';

export const k8sHelp = `rpc-certify k8s: run the load test on Kubernetes with k6-operator, merged into one exact report

Usage:
  rpc-certify k8s [--url <URL> | --corpus FILE] --parallelism N [options]
  rpc-certify k8s merge <run.json> <pod logs...> [--out DIR] [--baseline FILE|DIR]

The first form samples the corpus (or replays --corpus) and writes <out>/k8s.yaml (a ConfigMap with the
bundled script, the corpus in ConfigMaps of under 256 KiB each, and a TestRun with spec.parallelism N: the
operator gives each runner pod an execution segment) and <out>/run.json, then prints the steps: build the
runner image (load/k8s/Dockerfile: this project's k6 ${K6_VERSION}), create the Secret with the endpoint URL
(key included: the pods read it from there, no file written here holds it), \`kubectl apply --server-side\`.
Each pod ends its log with its results in mergeable form (counts and latency histograms); the second form
merges them into load.json, load.html and load.junit.xml, with thresholds, head freshness, fresh reads
(--fresh) and the baseline judged on the whole test.
The capacity profile needs this machine between steps: use \`rpc-certify load --segments\` for it.

Options:
  --url URL             the endpoint to sample the corpus from (--network, --api-key, --base-url also work)
${TEST_OPTIONS_HELP}
${FRESH_HELP}
  --parallelism N       runner pods (TestRun spec.parallelism)
  --name NAME           the TestRun's name; the ConfigMap is NAME-script, the Secret NAME-endpoint (default rpc-certify-load)
  --namespace NS        the namespace of the manifests
  --runner-image IMAGE  the runners' k6 image, built by load/k8s/Dockerfile
                        (default ${K6_RUNNER_IMAGE}: a local name, to load into the nodes; name your registry's to push)
  --out DIR             where the manifests go, and for merge the reports (default: k8s, merge: reports)
  --baseline FILE|DIR   merge: an earlier load.json or a baseline of several runs; fail on a regression
  --tolerance F         merge: allowed growth over the baseline
  -h, --help            this text

Exit codes: 0 written (merge: pass), 1 merge: a threshold, regression or head regression failed, 2 usage error.`;

export async function k8sCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...endpointOptions,
        ...testOptionSpecs,
        parallelism: { type: 'string' },
        fresh: { type: 'boolean', default: false },
        'no-fresh': { type: 'boolean', default: false },
        name: { type: 'string' },
        namespace: { type: 'string' },
        'runner-image': { type: 'string' },
        out: { type: 'string' },
        baseline: { type: 'string' },
        tolerance: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return print(k8sHelp);
    const [mode, run, ...logs] = positionals;
    if (mode === 'merge') {
      // Whether the pods chased the head was decided when the manifests were written: run.json's plan says it.
      if (values.fresh || values['no-fresh']) throw new UsageError('--fresh and --no-fresh go with `k8s` when the manifests are written, not with `k8s merge`: run.json\'s plan says whether the pods chased the head');
      if (!run || logs.length === 0) throw new UsageError('k8s merge takes run.json and at least one pod log (see --help)');
      return report(
        await (await import('../load/run/k8s.ts')).mergeK8s({
          run,
          logs,
          out: values.out ?? 'reports',
          ...(values.baseline ? { baseline: values.baseline } : {}),
          ...(values.tolerance ? { tolerance: share(values.tolerance, '--tolerance', 10) } : {}),
        }),
      );
    }
    if (mode !== undefined) throw new UsageError(`unexpected "${mode}": k8s takes options, or \`merge\` (see --help)`);
    if (!values.parallelism) throw new UsageError('--parallelism N is required (the TestRun runner pods)');
    const url = resolveEndpoint(values);
    return report(
      await (await import('../load/run/k8s.ts')).writeK8s({
        ...testOptions(values),
        ...freshOption(values.fresh, values['no-fresh'], undefined),
        ...(url ? { url } : {}),
        parallelism: positive(values.parallelism, '--parallelism'),
        out: values.out ?? 'k8s',
        ...(values.name ? { name: values.name } : {}),
        ...(values.namespace ? { namespace: values.namespace } : {}),
        ...(values['runner-image'] ? { runnerImage: values['runner-image'] } : {}),
        log: (line) => process.stderr.write(`${redact(line)}\n`),
      }),
    );
  });
}
