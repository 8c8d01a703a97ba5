// Reports are read by CI and by people while a run may still be writing: a reader must see the old
// file or the new one, never half of one. rename() within one directory is atomic on POSIX.
import { rename, unlink, writeFile } from 'node:fs/promises';

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
