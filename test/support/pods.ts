// What k6-operator runs from `rpc-certify k8s`'s manifests, here: two runner pods as two k6 processes with the
// TestRun's arguments, environment and execution segments (k6-operator pkg/resources/jobs/runner.go), the
// ConfigMaps' keys as files where they are mounted, the pods' logs as kubectl gives them.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { findK6 } from '../../core/node/tools/k6.ts';

/** A child process's exit code and its stdout and stderr interleaved. */
export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

interface K8sDoc {
  kind: string;
  data: Record<string, string>;
  spec: { arguments: string; runner: { env: Array<{ name: string; value?: string }> } };
}

/** Runs the two pods of the manifests `k8s --parallelism 2 --out dir` wrote against `url` (the Secret's); `env`: the TestRun's runner environment. */
export async function runPods(dir: string, url: string): Promise<{ pods: Array<{ code: number | null; output: string }>; env: Record<string, string> }> {
  const docs = parseAllDocuments(await readFile(join(dir, 'k8s.yaml'), 'utf8')).map((d) => d.toJSON() as K8sDoc);
  const testRun = docs.find((d) => d.kind === 'TestRun');
  const env = Object.fromEntries((testRun?.spec.runner.env ?? []).map((e) => [e.name, e.value ?? '']));
  // The ConfigMaps' keys as files: the script where the operator mounts it, the corpus parts where the TestRun's volume does.
  const mount = join(dir, 'corpus');
  await mkdir(mount, { recursive: true });
  for (const d of docs.filter((x) => x.kind === 'ConfigMap')) for (const [key, text] of Object.entries(d.data)) await writeFile(join(key === 'scenario.js' ? dir : mount, key), text);
  const script = join(dir, 'scenario.js');
  const k6 = (await findK6())!.path;
  const pods = await Promise.all(
    ['0:1/2', '1/2:1'].map((segment, i) =>
      run(k6, ['run', '--quiet', `--execution-segment=${segment}`, '--execution-segment-sequence=0,1/2,1', ...(testRun?.spec.arguments.split(' ') ?? []), script, '--tag', `instance_id=${i}`], {
        // The TestRun's environment, as the operator gives it; the Secret's URL and the mounts' paths are this machine's.
        ...env,
        RPC_CERTIFY_URL: url,
        RPC_CERTIFY_CORPUS: join(mount, basename(env['RPC_CERTIFY_CORPUS'] ?? '')),
        RPC_CERTIFY_CORPUS_PARTS: env['RPC_CERTIFY_CORPUS_PARTS'] ?? '',
      }),
    ),
  );
  return { pods, env };
}
