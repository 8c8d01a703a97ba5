// Per-network fixtures (fixtures/targets/*.json), matched by chain id so that any URL serving that chain
// gets them. They name history by number or hash only; the rest is read from the endpoint now.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Targets } from '../../core/targets.ts';
import type { RpcClient } from '../../core/node/rpc-client.ts';

const FIXTURE_DIR = fileURLToPath(new URL('../../fixtures/targets/', import.meta.url));

interface FixtureFile {
  chainId: string;
  uncleBlockNumber?: string;
  preByzantiumTx?: string;
}

export async function fixtureTargets(client: RpcClient, chainId: string, dir = FIXTURE_DIR): Promise<Partial<Targets>> {
  const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.json'));
  const out: Partial<Targets> = {};
  for (const file of files) {
    const f = JSON.parse(await readFile(join(dir, file), 'utf8')) as FixtureFile;
    if (f.chainId.toLowerCase() !== chainId.toLowerCase()) continue;
    if (f.preByzantiumTx) out.preByzantiumTx = f.preByzantiumTx;
    if (f.uncleBlockNumber) {
      const block = await client.call<{ number: string; hash: string; uncles: string[] } | null>('eth_getBlockByNumber', [f.uncleBlockNumber, false]).catch(() => null);
      // A block the endpoint no longer serves leaves the target out: its checks skip and say why.
      if (block?.hash) out.uncleBlock = { number: block.number, hash: block.hash, uncleCount: block.uncles.length };
    }
  }
  return out;
}
