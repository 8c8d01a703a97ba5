// Finds or builds the geth the project's own tests certify beside anvil: the pinned version in the tools
// dir, else the same version first on PATH, else a build with Go (`npm run setup` does it).
// Later tags than GETH_VERSION need a module this machine's proxy does not serve.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { goInstall, run, toolsDir } from './go-install.ts';

export const GETH_VERSION = 'v1.17.8';

export interface GethBinary {
  path: string;
  version: string;
  source: 'path' | 'tools' | 'built';
}

/** The geth that would be used, without building anything. Only the pinned version counts: its expectations file is written for it. */
export async function findGeth(): Promise<GethBinary | undefined> {
  const inTools = join(toolsDir(), 'bin', 'geth');
  if ((await gethVersion(inTools)) === GETH_VERSION) return { path: inTools, version: GETH_VERSION, source: 'tools' };
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'geth');
    if ((await access(candidate, constants.X_OK).then(() => true, () => false)) && (await gethVersion(candidate)) === GETH_VERSION) return { path: candidate, version: GETH_VERSION, source: 'path' };
  }
  return undefined;
}

export async function ensureGeth(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<GethBinary> {
  const found = await findGeth();
  if (found) return found;
  log(`building geth ${GETH_VERSION} with Go into ${join(toolsDir(), 'bin')} (about 5 minutes on 2 cores)`);
  const path = await goInstall({ name: 'geth', module: 'github.com/ethereum/go-ethereum', pkg: 'github.com/ethereum/go-ethereum/cmd/geth', version: GETH_VERSION, minGo: [1, 25] }, log);
  const version = await gethVersion(path);
  if (version !== GETH_VERSION) throw new Error(`built ${path} but it reports ${version ?? 'no version'}, expected ${GETH_VERSION}`);
  return { path, version, source: 'built' };
}

/** `geth version` prints "Version: 1.17.8-stable"; as a tag, v1.17.8. */
export async function gethVersion(binary: string): Promise<string | undefined> {
  const out = await run(binary, ['version']).catch(() => undefined);
  const v = out && /^Version: (\d+\.\d+\.\d+)/m.exec(out.stdout)?.[1];
  return v ? `v${v}` : undefined;
}
