// Reports are read by CI and by people while a run may still be writing: a reader must see the old
// file or the new one, never half of one. rename() within one directory is atomic on POSIX.
import { mkdir, realpath, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Removes the files an earlier run left in `dir` under `names` (its reports), before this run starts: a run that
 * ends without writing its own (interrupted, an endpoint not usable) leaves no earlier verdict, a stale PASS, for
 * CI to archive. `keep`: this run's inputs among them (a replayed corpus), which stay.
 */
export async function removeEarlierReports(dir: string, names: readonly string[], keep: readonly string[] = []): Promise<void> {
  const real = (p: string) => realpath(p).catch(() => resolve(p));
  const kept = new Set(await Promise.all(keep.map(real)));
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      if (!kept.has(await real(path))) await rm(path, { force: true });
    }),
  );
}

/**
 * Makes the reports' directory, one level at a time: node's recursive mkdir spins forever under /proc. Throws with the
 * path and the system's code when it cannot be made (a file in the way, a read-only place).
 */
export async function makeOutDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const found = await stat(at).catch(() => undefined);
    if (found) {
      if (!found.isDirectory()) throw new Error(`${at} is not a directory`);
      break;
    }
    missing.unshift(at);
    if (dirname(at) === at) break;
    at = dirname(at);
  }
  for (const d of missing) await mkdir(d).catch((e: NodeJS.ErrnoException) => (e.code === 'EEXIST' ? undefined : Promise.reject(new Error(`cannot create ${d} (${e.code ?? e.message})`))));
}
