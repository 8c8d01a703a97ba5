// Spawns geth --dev (built by `npm run setup` into the tools dir) on 127.0.0.1 with a throwaway datadir.
// Dev mode mines a block as soon as a transaction is executable (--dev.period 0) and whenever a withdrawal
// is queued through the dev_ namespace; with a period (--dev.period S) it mines a block every S seconds instead,
// empty or not. The period is fixed at start: a moving geth is seeded on demand, stopped, and started again on
// the same datadir with its period (devnet/index.ts). The developer account holds a fixed, public key (DEV_KEY).
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

export interface GethOptions {
  port?: number;
  binary?: string;
  /** Seconds between blocks (--dev.period); 0 (the default) mines on demand. */
  periodS?: number;
  /** A datadir the caller owns and removes (kept when the node stops); default: a throwaway one, removed on stop. */
  datadir?: string;
  /** Ends the start at once (spawnNode). */
  signal?: AbortSignal;
}

export async function startGeth(opts: GethOptions = {}): Promise<Geth> {
  const binary = opts.binary ?? (await gethBinary());
  return withFreePort(opts.port, async (port) => {
    const datadir = opts.datadir ?? (await mkdtemp(join(tmpdir(), 'rpc-certify-geth-')));
    const args = [
      '--dev',
      '--dev.period', String(opts.periodS ?? 0),
      '--datadir', datadir,
      '--http', '--http.addr', '127.0.0.1', '--http.port', String(port),
      // txpool: the background traffic of a moving devnet reads the mempool's size (traffic.ts).
      '--http.api', 'eth,net,web3,dev,txpool',
      // Nothing else listens: no IPC, no peers, the p2p and engine ports picked by the OS.
      '--ipcdisable', '--nodiscover', '--maxpeers', '0', '--port', '0', '--authrpc.port', '0',
      '--verbosity', '2',
    ];
    // A throwaway datadir goes when the node stops, and spawnNode stops it on a failed start too.
    const onStopped = opts.datadir ? undefined : () => rm(datadir, { recursive: true, force: true });
    const node = await spawnNode('geth', binary, args, port, START_TIMEOUT_MS, { ...(onStopped ? { onStopped } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
    return { ...node, binary };
  });
}
