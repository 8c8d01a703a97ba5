// Finds or builds the k6 binary the load tests run: the user's own k6 first on PATH, else the pinned
// version in the tools dir ($RPC_CERTIFY_TOOLS or ~/.cache/rpc-certify/tools, outside git), else a
// build with Go. Run as a script: `npx tsx scripts/setup-k6.ts`.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { goInstall, run, toolsDir } from './go-install.ts';

export { toolsDir } from './go-install.ts';

export const K6_VERSION = 'v2.2.0';
const K6_MODULE = 'go.k6.io/k6/v2';

export interface K6Binary {
  path: string;
  version: string;
  source: 'path' | 'tools' | 'built';
}

/** The k6 that would be used, without building anything (for `doctor`). */
export async function findK6(): Promise<K6Binary | undefined> {
  const onPath = await firstOnPath('k6');
  const pathVersion = onPath && (await versionOf(onPath));
  // The user's own k6 wins when it is k6 v1 or later (the scenarios need its open-model executors and dashboard).
  if (onPath && pathVersion && majorOf(pathVersion) >= 1) return { path: onPath, version: pathVersion, source: 'path' };
  const inTools = join(toolsDir(), 'bin', 'k6');
  const toolsVersion = await versionOf(inTools);
  return toolsVersion === K6_VERSION ? { path: inTools, version: toolsVersion, source: 'tools' } : undefined;
}

export async function ensureK6(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<K6Binary> {
  const found = await findK6();
  if (found) return found;
  log(`building k6 ${K6_VERSION} with Go into ${join(toolsDir(), 'bin')} (about 3 minutes on 2 cores)`);
  const path = await goInstall({ name: 'k6', module: K6_MODULE, pkg: K6_MODULE, version: K6_VERSION, minGo: [1, 25] }, log);
  const version = await versionOf(path);
  if (version !== K6_VERSION) throw new Error(`built ${path} but it reports ${version ?? 'no version'}, expected ${K6_VERSION}`);
  return { path, version, source: 'built' };
}

export async function versionOf(binary: string): Promise<string | undefined> {
  const out = await run(binary, ['version']).catch(() => undefined);
  return out && /k6 (v\d+\.\d+\.\d+\S*)/.exec(out.stdout)?.[1];
}

function majorOf(version: string): number {
  return Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
}

async function firstOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureK6().then(
    (k6) => console.log(`k6 ${k6.version} (${k6.source}): ${k6.path}`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
