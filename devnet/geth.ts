// Spawns geth --dev (built by `npm run setup` into the tools dir) on 127.0.0.1 with a throwaway datadir.
// Dev mode mines a block as soon as a transaction is executable (--dev.period 0) and whenever a withdrawal
// is queued through the dev_ namespace; the developer account holds a fixed, public key (DEV_KEY).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findGeth, GETH_VERSION } from '../core/node/tools/geth.ts';
import { type NodeProcess, spawnNode, withFreePort } from './process.ts';

export interface Geth extends NodeProcess {
  binary: string;
}

/** go-ethereum's developer key (cmd/utils DeveloperKey): geth --dev funds its address at genesis. */
export const DEV_KEY = '0xb71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291';

const START_TIMEOUT_MS = 30_000;

export async function gethBinary(): Promise<string> {
  const found = await findGeth();
  if (!found) throw new Error(`geth ${GETH_VERSION} is not built: run \`npm run setup\` (builds it with Go into the tools dir)`);
  return found.path;
}

export async function startGeth(opts: { port?: number; binary?: string } = {}): Promise<Geth> {
  const binary = opts.binary ?? (await gethBinary());
  return withFreePort(opts.port, async (port) => {
    const datadir = await mkdtemp(join(tmpdir(), 'rpc-certify-geth-'));
    const args = [
      '--dev',
      '--dev.period', '0',
      '--datadir', datadir,
      '--http', '--http.addr', '127.0.0.1', '--http.port', String(port),
      '--http.api', 'eth,net,web3,dev',
      // Nothing else listens: no IPC, no peers, the p2p and engine ports picked by the OS.
      '--ipcdisable', '--nodiscover', '--maxpeers', '0', '--port', '0', '--authrpc.port', '0',
      '--verbosity', '2',
    ];
    // The datadir goes when the node stops, and spawnNode stops it on a failed start too.
    const node = await spawnNode('geth', binary, args, port, START_TIMEOUT_MS, { onStopped: () => rm(datadir, { recursive: true, force: true }) });
    return { ...node, binary };
  });
}
