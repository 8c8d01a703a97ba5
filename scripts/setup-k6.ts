// Finds or builds the k6 binary the load tests run: the user's own k6 first on PATH, else the pinned
// version in the tools dir ($RPC_CERTIFY_TOOLS or ~/.cache/rpc-certify/tools, outside git), else a
// build with Go. Run as a script: `npx tsx scripts/setup-k6.ts`.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const K6_VERSION = 'v2.2.0';
const K6_MODULE = 'go.k6.io/k6/v2';
const MIN_GO = [1, 25];

export interface K6Binary {
  path: string;
  version: string;
  source: 'path' | 'tools' | 'built';
}

const run = promisify(execFile);

export function toolsDir(): string {
  return process.env['RPC_CERTIFY_TOOLS'] || join(homedir(), '.cache', 'rpc-certify', 'tools');
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
  const bin = join(toolsDir(), 'bin');
  await requireGo();
  log(`building k6 ${K6_VERSION} with Go into ${bin} (about 3 minutes on 2 cores)`);
  const env = { ...process.env, GOBIN: bin };
  const direct = await attempt(() => run('go', ['install', `${K6_MODULE}@${K6_VERSION}`], { env, maxBuffer: 16 << 20 }));
  if (direct) {
    // Some module proxies cannot list the /v2 module's versions (a 404 on @v/list), which `go install
    // pkg@version` needs; resolving the version inside a throwaway module, through the proxies only, works.
    log(`go install ${K6_MODULE}@${K6_VERSION} failed; retrying through a temporary module`);
    const viaModule = await attempt(() => buildViaTempModule(env));
    if (viaModule) throw new Error(`could not build k6 ${K6_VERSION}:\n--- go install ---\n${direct}\n--- temporary module ---\n${viaModule}`);
  }
  const path = join(bin, 'k6');
  const version = await versionOf(path);
  if (version !== K6_VERSION) throw new Error(`built ${path} but it reports ${version ?? 'no version'}, expected ${K6_VERSION}`);
  return { path, version, source: 'built' };
}

async function buildViaTempModule(env: NodeJS.ProcessEnv): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'k6build-'));
  try {
    const proxies = (await run('go', ['env', 'GOPROXY'])).stdout.trim();
    const withoutDirect = proxies
      .split(/[,|]/)
      .filter((p) => p && p !== 'direct' && p !== 'off')
      .join(',');
    const goEnv = { ...env, ...(withoutDirect ? { GOPROXY: withoutDirect } : {}) };
    const go = (args: string[]) => run('go', args, { cwd: dir, env: goEnv, maxBuffer: 16 << 20 });
    await go(['mod', 'init', 'k6build']);
    await go(['get', `${K6_MODULE}@${K6_VERSION}`]);
    await go(['install', K6_MODULE]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function requireGo(): Promise<void> {
  const out = await run('go', ['version']).catch(() => undefined);
  if (!out) throw new Error(`k6 ${K6_VERSION} is not installed and Go is not on PATH: install Go >= ${MIN_GO.join('.')} or put k6 on PATH`);
  const [major = 0, minor = 0] = (/go(\d+)\.(\d+)/.exec(out.stdout) ?? []).slice(1).map(Number);
  if (major < (MIN_GO[0] ?? 1) || (major === MIN_GO[0] && minor < (MIN_GO[1] ?? 0))) {
    throw new Error(`building k6 ${K6_VERSION} needs Go >= ${MIN_GO.join('.')}; found ${out.stdout.trim()}`);
  }
}

/** Runs a step; returns its error text, or undefined when it succeeded. */
async function attempt(step: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await step();
    return undefined;
  } catch (e) {
    const err = e as { stderr?: string; message?: string };
    return (err.stderr || err.message || String(e)).trim();
  }
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
