// Bundles the command line (cli/main.ts and what it imports) with esbuild into dist/, so a call costs
// node's start-up and not the TypeScript loader's (~1.5 s). A build is named after the newest source's
// mtime and the checkout's path: a changed source, or a moved checkout, gets a new build on the next call.
// Commands are split into chunks loaded on demand, so `--help` and usage errors load almost nothing.
// `npm install` builds it (prepare); bin/rpc-certify.js builds it when missing or stale.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const SOURCES = ['cli', 'core', 'conformance', 'devnet', 'load', 'schemas', 'scripts', 'fixtures/networks.json', 'package.json', 'bin/build-cli.js'];

function newestMtime(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** Where the build of the current sources lives (it may not exist yet). */
export function currentBuild() {
  const newest = Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))));
  const where = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);
  return join(DIST, `build-${Math.floor(newest)}-${where}`);
}

/** Builds the current sources (unless built already); returns the entry module's path. */
export async function buildCli() {
  const dir = currentBuild();
  const entry = join(dir, 'main.js');
  if (existsSync(entry)) return entry;
  const { build } = await import('esbuild');
  const tmp = join(DIST, `tmp-${process.pid}-${Date.now()}`);
  mkdirSync(tmp, { recursive: true });
  try {
    await build({
      entryPoints: [join(ROOT, 'cli', 'main.ts')],
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
      plugins: [sourceUrls()],
    });
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (!existsSync(entry)) throw e; // another process built the same sources first: use theirs
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  removeOldBuilds(dir);
  return entry;
}

/** Each module keeps its own import.meta.url (files it reads next to itself: fixtures, the k6 scenario). */
function sourceUrls() {
  return {
    name: 'source-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => ({
        contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      }));
    },
  };
}

/** Builds older than an hour: no command still running loads its chunks from them. */
function removeOldBuilds(keep) {
  const hourAgo = Date.now() - 3600_000;
  for (const name of readdirSync(DIST)) {
    const path = join(DIST, name);
    if (path !== keep && name.startsWith('build-') && statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const entry = await buildCli();
  console.log(`rpc-certify: command line built into ${entry.slice(ROOT.length)} (${Math.round(performance.now() - started)} ms)`);
}
