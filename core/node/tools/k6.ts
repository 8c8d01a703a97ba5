// Finds or builds the k6 binary the load tests run: the user's own k6 first on PATH, else the pinned
// version in the tools dir ($RPC_CERTIFY_TOOLS or ~/.cache/rpc-certify/tools, outside git), else a
// build with Go. `npx tsx scripts/setup-k6.ts` runs it on its own.
import { ensureGoTool, findGoTool, type GoTool, type ToolBinary, versionOutput } from './go-install.ts';

export { toolsDir } from './go-install.ts';

export const K6_VERSION = 'v2.2.0';
export const K6_MODULE = 'go.k6.io/k6/v2';
/** The oldest Go that builds it (load/k8s/Dockerfile's builder image must be as new). */
export const K6_MIN_GO: [number, number] = [1, 25];
/** The k6-operator runner image load/k8s/Dockerfile builds, unless `k8s --runner-image` names another: a local
 * name (no registry answers for localhost/), so a cluster runs only an image the user built and loaded or pushed. */
export const K6_RUNNER_IMAGE = `localhost/rpc-certify-k6:${K6_VERSION}`;

export type K6Binary = ToolBinary;

const K6: GoTool = {
  name: 'k6',
  module: K6_MODULE,
  pkg: K6_MODULE,
  version: K6_VERSION,
  minGo: K6_MIN_GO,
  versionOf,
  // The user's own k6 wins when it is k6 v1 or later (the scenarios need its open-model executors and dashboard).
  onPath: { kind: 'own', accept: (version) => majorOf(version) >= 1 },
  buildNote: 'about 3 minutes on 2 cores',
};

/** The k6 that would be used, without building anything (for `doctor`). */
export function findK6(): Promise<K6Binary | undefined> {
  return findGoTool(K6);
}

export function ensureK6(log?: (line: string) => void): Promise<K6Binary> {
  return ensureGoTool(K6, log);
}

export async function versionOf(binary: string): Promise<string | undefined> {
  return /k6 (v\d+\.\d+\.\d+\S*)/.exec((await versionOutput(binary)) ?? '')?.[1];
}

function majorOf(version: string): number {
  return Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
}
