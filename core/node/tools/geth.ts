// Finds or builds the geth the project's own tests certify beside anvil: the pinned version in the tools
// dir, else the same version first on PATH, else a build with Go (`npm run setup` does it).
// Later tags than GETH_VERSION need a module this machine's proxy does not serve.
import { ensureGoTool, findGoTool, type GoTool, type ToolBinary, versionOutput } from './go-install.ts';

export const GETH_VERSION = 'v1.17.8';

export type GethBinary = ToolBinary;

const GETH: GoTool = {
  name: 'geth',
  module: 'github.com/ethereum/go-ethereum',
  pkg: 'github.com/ethereum/go-ethereum/cmd/geth',
  version: GETH_VERSION,
  minGo: [1, 25],
  versionOf: gethVersion,
  // Only the pinned version counts: its expectations file is written for it.
  onPath: { kind: 'pinned' },
  buildNote: 'about 5 minutes on 2 cores',
};

/** The geth that would be used, without building anything. */
export function findGeth(): Promise<GethBinary | undefined> {
  return findGoTool(GETH);
}

export function ensureGeth(log?: (line: string) => void): Promise<GethBinary> {
  return ensureGoTool(GETH, log);
}

/** `geth version` prints "Version: 1.17.8-stable"; as a tag, v1.17.8. */
export async function gethVersion(binary: string): Promise<string | undefined> {
  const v = /^Version: (\d+\.\d+\.\d+)/m.exec((await versionOutput(binary)) ?? '')?.[1];
  return v ? `v${v}` : undefined;
}
