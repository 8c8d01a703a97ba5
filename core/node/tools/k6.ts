// Finds or builds the k6 binary the load tests run: the user's own k6 first on PATH, else the pinned
// version in the tools dir ($RPC_CERTIFY_TOOLS or ~/.cache/rpc-certify/tools, outside git), else a
// build with Go. The build links in this repository's extension k6/x/rpccertify (k6ext/: answers recognised
// in Go), and is redone when k6ext/ changes. `npx tsx scripts/setup-k6.ts` runs it on its own.
import { fileURLToPath } from 'node:url';
import { GO_RECOGNITION } from '../../reply.ts';
import { ensureGoTool, findGoTool, type GoTool, linkedGoMod, linkedStamp, type ToolBinary, versionOutput } from './go-install.ts';

export { toolsDir } from './go-install.ts';

export const K6_VERSION = 'v2.2.0';
export const K6_MODULE = 'go.k6.io/k6/v2';
/** The oldest Go that builds it (load/k8s/Dockerfile's builder image must be as new). */
export const K6_MIN_GO: [number, number] = [1, 25];
/** The k6-operator runner image load/k8s/Dockerfile builds, unless `k8s --runner-image` names another: a local
 * name (no registry answers for localhost/), so a cluster runs only an image the user built and loaded or pushed. */
export const K6_RUNNER_IMAGE = `localhost/rpc-certify-k6:${K6_VERSION}`;

/** The extension's Go module (k6ext/go.mod) and its folder. */
export const K6_EXTENSION = { module: 'rpc-certify.local/k6ext', dir: fileURLToPath(new URL('../../../k6ext', import.meta.url)) };

export interface K6Binary extends ToolBinary {
  /** It has k6/x/rpccertify: the scenario recognises answers in Go. A k6 without it (a user's own) runs the JavaScript path. */
  extension: boolean;
}

const MAIN_GO = `// k6 with rpc-certify's extension, written by core/node/tools/k6.ts.
package main

import (
\tk6cmd "${K6_MODULE}/cmd"

\t_ "${K6_EXTENSION.module}"
)

func main() {
\tk6cmd.Execute()
}
`;

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
  linked: { main: MAIN_GO, modules: [K6_EXTENSION] },
};

/** The files load/k8s/Dockerfile writes to build the runner image's k6 as this build does, k6ext/ copied to `folder`
 * (test/load/k8s-limits.test.ts holds the Dockerfile to them). */
export function k6BuildFiles(folder: string): { 'go.mod': string; 'main.go': string } {
  return { 'go.mod': linkedGoMod(K6, [{ ...K6_EXTENSION, dir: folder }]), 'main.go': MAIN_GO };
}

/** The k6 that would be used, without building anything (for `doctor`). */
export async function findK6(): Promise<K6Binary | undefined> {
  const found = await findGoTool(K6);
  return found && withExtension(found);
}

export async function ensureK6(log?: (line: string) => void): Promise<K6Binary> {
  return withExtension(await ensureGoTool(K6, log));
}

/** The stamp a current build carries beside it (`<tools>/bin/k6.stamp`): any change to k6ext/ or the pin changes it. */
export function k6BuildStamp(): Promise<string> {
  return linkedStamp(K6, { main: MAIN_GO, modules: [K6_EXTENSION] });
}

/** Whether `k6 version` lists the extension among the modules built in. */
async function withExtension(binary: ToolBinary): Promise<K6Binary> {
  const listed = ((await versionOutput(binary.path)) ?? '').split('\n').some((line) => line.includes(`, ${GO_RECOGNITION.name} [js]`));
  return { ...binary, extension: listed };
}

export async function versionOf(binary: string): Promise<string | undefined> {
  return /k6 (v\d+\.\d+\.\d+\S*)/.exec((await versionOutput(binary)) ?? '')?.[1];
}

function majorOf(version: string): number {
  return Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
}
