// Finds or builds a pinned Go command in the tools dir ($RPC_CERTIFY_TOOLS or ~/.cache/rpc-certify/tools, outside
// git): k6 and geth by `npm run setup`, vegeta by the bench. One flow for all three: a binary on PATH where the
// tool allows one, else the pinned version in the tools dir, else a build with Go.
import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/** How long a found binary may take to print its version before it is passed over. */
const VERSION_TIMEOUT_MS = 10_000;

/**
 * What `<binary> version` prints, or undefined when it fails or does not answer within VERSION_TIMEOUT_MS (a
 * wrapper waiting on a network or a container, a broken install; red team C5: a silent hang of `load` and
 * `doctor`). The probe runs in its own process group, killed whole on the timeout (a wrapper's own children
 * would otherwise hold its output open).
 */
export function versionOutput(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['version'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => {
      process.stderr.write(`rpc-certify: ${binary} did not answer \`version\` within ${VERSION_TIMEOUT_MS / 1000} s: passed over\n`);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
      resolve(undefined);
    }, VERSION_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', () => (clearTimeout(timer), resolve(undefined)));
    child.on('close', (code) => (clearTimeout(timer), resolve(code === 0 ? out : undefined)));
  });
}

export function toolsDir(): string {
  // Absolute: `go install` takes GOBIN only as an absolute path, and the tools must be found from any directory.
  return resolve(process.env['RPC_CERTIFY_TOOLS'] || join(homedir(), '.cache', 'rpc-certify', 'tools'));
}

export interface GoCommand {
  name: string;
  /** The Go module and the package of the command inside it. */
  module: string;
  pkg: string;
  version: string;
  minGo: [number, number];
  /** Built with packages of this repository linked in (k6 extensions): through a temporary main module, not `go install`. */
  linked?: LinkedBuild;
}

/** A command built from a temporary main module that imports local Go modules (each `replace`d by its folder). */
export interface LinkedBuild {
  /** The main package's source (main.go). */
  main: string;
  /** The local modules it imports: module path and absolute folder. */
  modules: Array<{ module: string; dir: string }>;
}

export interface GoTool extends GoCommand {
  /** The version a binary reports, as a tag (v1.2.3); undefined when it does not run. */
  versionOf(binary: string): Promise<string | undefined>;
  /** A binary on PATH in place of the tools dir's: 'own', the user's own (the first on PATH), wins over the tools dir
   * when it `accept`s its version; 'pinned', the pinned version anywhere on PATH, serves after the tools dir. Without
   * it, only the tools dir counts. */
  onPath?: { kind: 'own'; accept: (version: string) => boolean } | { kind: 'pinned' };
  /** Said when it has to be built: how long that takes, or what it is for. */
  buildNote: string;
}

export interface ToolBinary {
  path: string;
  version: string;
  source: 'path' | 'tools' | 'built';
}

/** The binary that would be used, without building anything (for `doctor` and the tests that skip without it). */
export async function findGoTool(tool: GoTool): Promise<ToolBinary | undefined> {
  if (tool.onPath?.kind === 'own') {
    const own = (await onPath(tool.name))[0];
    const version = own && (await tool.versionOf(own));
    if (own && version && tool.onPath.accept(version)) return { path: own, version, source: 'path' };
  }
  const inTools = join(toolsDir(), 'bin', tool.name);
  if ((await tool.versionOf(inTools)) === tool.version && (await isCurrent(tool, inTools))) return { path: inTools, version: tool.version, source: 'tools' };
  if (tool.onPath?.kind === 'pinned') {
    for (const candidate of await onPath(tool.name)) {
      if ((await tool.versionOf(candidate)) === tool.version) return { path: candidate, version: tool.version, source: 'path' };
    }
  }
  return undefined;
}

/** The binary to use, built into the tools dir first when there is none; throws with Go's own error when it cannot be built. */
export async function ensureGoTool(tool: GoTool, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<ToolBinary> {
  const found = await findGoTool(tool);
  if (found) return found;
  // Go first: "building" is said only of a build that can start.
  await requireGo(tool);
  log(`building ${tool.name} ${tool.version} with Go into ${join(toolsDir(), 'bin')} (${tool.buildNote})`);
  const path = await goInstall(tool, log);
  const version = await tool.versionOf(path);
  if (version !== tool.version) throw new Error(`built ${path} but it reports ${version ?? 'no version'}, expected ${tool.version}`);
  return { path, version, source: 'built' };
}

/** The executables called `name` on PATH, in PATH order. */
async function onPath(name: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) found.push(candidate);
  }
  return found;
}

/** A linked build is current while its stamp (beside the binary) matches the sources it was built from. */
async function isCurrent(cmd: GoCommand, binary: string): Promise<boolean> {
  if (!cmd.linked) return true;
  const stamp = await readFile(`${binary}.stamp`, 'utf8').catch(() => '');
  return stamp.trim() === (await linkedStamp(cmd, cmd.linked));
}

/** sha256 over the version, main.go and every file of the linked modules' folders: any change there rebuilds. */
export async function linkedStamp(cmd: GoCommand, linked: LinkedBuild): Promise<string> {
  const hash = createHash('sha256').update(`${cmd.module}@${cmd.version}\n${linked.main}\n`);
  for (const { module, dir } of linked.modules) {
    hash.update(`${module}\n`);
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name)).sort();
    for (const file of files) hash.update(`${file.slice(dir.length)}\n`).update(await readFile(file));
  }
  return hash.digest('hex');
}

/** `go install pkg@version` (or a linked build) into <tools>/bin; returns the binary's path. Throws with both attempts' output. */
export async function goInstall(cmd: GoCommand, log: (line: string) => void): Promise<string> {
  const bin = join(toolsDir(), 'bin');
  await requireGo(cmd);
  if (cmd.linked) return linkedBuild(cmd, cmd.linked, bin, log);
  const env = { ...process.env, GOBIN: bin };
  // A build takes minutes and go prints nothing meanwhile: say it is still going.
  const started = Date.now();
  const ticker = setInterval(() => log(`  still building ${cmd.name}: ${Math.round((Date.now() - started) / 1000)} s (go downloads the modules, then compiles)`), 20_000);
  try {
    const direct = await attempt(() => run('go', ['install', `${cmd.pkg}@${cmd.version}`], { env, maxBuffer: 16 << 20 }));
    if (direct) {
      // Some module proxies cannot list a module's versions (a 404 on @v/list), which `go install
      // pkg@version` needs; resolving the version inside a throwaway module, through the proxies only, works.
      const listing = /loading deprecation|@v\/list|404|no matching versions/i.test(direct);
      log(listing ? `  go install cannot look up ${cmd.module}'s versions here (expected where only a module proxy is reachable): building ${cmd.version} through a temporary module instead` : `  go install ${cmd.pkg}@${cmd.version} did not work (${direct.split('\n')[0]}): trying through a temporary module`);
      const viaModule = await attempt(() => buildViaTempModule(cmd, env));
      if (viaModule) throw new Error(`could not build ${cmd.name} ${cmd.version}:\n--- go install ---\n${direct}\n--- temporary module ---\n${viaModule}`);
    }
  } finally {
    clearInterval(ticker);
  }
  log(`  built ${cmd.name} ${cmd.version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return join(bin, cmd.name);
}

/** The temporary main module's go.mod: the command's module pinned, each linked module replaced by its folder (`dir`:
 * here the repository's; in load/k8s/Dockerfile, where the image's build copies it). */
export function linkedGoMod(cmd: GoCommand, modules: LinkedBuild['modules']): string {
  return [
    `module ${cmd.name}build`,
    '',
    `go ${cmd.minGo.join('.')}`,
    '',
    `require ${cmd.module} ${cmd.version}`,
    ...modules.flatMap(({ module, dir: folder }) => [`require ${module} v0.0.0`, `replace ${module} => ${folder}`]),
    '',
  ].join('\n');
}

/** Builds through a temporary main module that requires the pinned module and imports the local ones (`replace`d by
 * their folders), then writes the stamp that says which sources the binary holds. */
async function linkedBuild(cmd: GoCommand, linked: LinkedBuild, bin: string, log: (line: string) => void): Promise<string> {
  const started = Date.now();
  const ticker = setInterval(() => log(`  still building ${cmd.name}: ${Math.round((Date.now() - started) / 1000)} s (go downloads the modules, then compiles)`), 20_000);
  const dir = await mkdtemp(join(tmpdir(), `${cmd.name}build-`));
  const out = join(bin, cmd.name);
  // Its own name: two builds at once (two shells, two test runs) do not write into one file.
  const partial = `${out}.${process.pid}.tmp`;
  try {
    await mkdir(bin, { recursive: true });
    const stamp = await linkedStamp(cmd, linked);
    await writeFile(join(dir, 'go.mod'), linkedGoMod(cmd, linked.modules));
    await writeFile(join(dir, 'main.go'), linked.main);
    // The linked modules' checksums (k6ext's go.sum covers k6's whole build); -mod=mod adds what is missing, no more
    // (`go mod tidy` would also fetch the test-only modules of every dependency).
    const sums = await Promise.all(linked.modules.map((m) => readFile(join(m.dir, 'go.sum'), 'utf8').catch(() => '')));
    await writeFile(join(dir, 'go.sum'), sums.join(''));
    const go = (args: string[]) => run('go', args, { cwd: dir, env: process.env, maxBuffer: 16 << 20 });
    const failed = await attempt(() => go(['build', '-mod=mod', '-o', partial, '.']));
    if (failed) throw new Error(`could not build ${cmd.name} ${cmd.version} with ${linked.modules.map((m) => m.module).join(', ')}:\n${failed}`);
    // Replaced whole (a rename), stamp last: a binary another process is running stays intact, and an interrupted build is not current.
    await rm(`${out}.stamp`, { force: true });
    await rename(partial, out);
    await writeFile(`${out}.stamp`, `${stamp}\n`);
  } finally {
    clearInterval(ticker);
    await rm(dir, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
  log(`  built ${cmd.name} ${cmd.version} with ${linked.modules.map((m) => m.module).join(', ')} in ${Math.round((Date.now() - started) / 1000)} s`);
  return out;
}

async function buildViaTempModule(cmd: GoCommand, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `${cmd.name}build-`));
  try {
    const proxies = (await run('go', ['env', 'GOPROXY'])).stdout.trim();
    const withoutDirect = proxies
      .split(/[,|]/)
      .filter((p) => p && p !== 'direct' && p !== 'off')
      .join(',');
    const goEnv = { ...env, ...(withoutDirect ? { GOPROXY: withoutDirect } : {}) };
    const go = (args: string[]) => run('go', args, { cwd: dir, env: goEnv, maxBuffer: 16 << 20 });
    await go(['mod', 'init', `${cmd.name}build`]);
    await go(['get', `${cmd.module}@${cmd.version}`]);
    await go(['install', cmd.pkg]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function requireGo(cmd: GoCommand): Promise<void> {
  const [minMajor, minMinor] = cmd.minGo;
  const out = await run('go', ['version']).catch(() => undefined);
  if (!out) throw new Error(`${cmd.name} ${cmd.version} is not installed and Go is not on PATH: install Go >= ${minMajor}.${minMinor} or put ${cmd.name} on PATH`);
  const [major = 0, minor = 0] = (/go(\d+)\.(\d+)/.exec(out.stdout) ?? []).slice(1).map(Number);
  if (major < minMajor || (major === minMajor && minor < minMinor)) {
    throw new Error(`building ${cmd.name} ${cmd.version} needs Go >= ${minMajor}.${minMinor}; found ${out.stdout.trim()}`);
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
