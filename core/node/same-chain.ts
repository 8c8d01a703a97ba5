// Two nodes on the same chain: the same chain id is not enough (two local devnets, a testnet reset, a fork that kept
// its parent's id all share one), so the genesis hashes must agree too. Used wherever a reference is opened.
import type { RpcClient } from './rpc-client.ts';

/** The hash of block 0, lowercased; undefined when the node does not serve it (then the genesis cannot be compared). */
export async function genesisHashOf(client: RpcClient): Promise<string | undefined> {
  const block = await client.call<{ hash?: unknown } | null>('eth_getBlockByNumber', ['0x0', false]).catch(() => undefined);
  return typeof block?.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block.hash) ? block.hash.toLowerCase() : undefined;
}

/** Why the reference is on another chain than the endpoint although their chain ids agree, if their genesis blocks say so. */
export async function otherGenesis(endpoint: RpcClient, reference: RpcClient): Promise<string | undefined> {
  const [ours, theirs] = await Promise.all([genesisHashOf(endpoint), genesisHashOf(reference)]);
  if (ours === undefined || theirs === undefined || ours === theirs) return undefined;
  return `the reference (--reference-url) has genesis ${theirs}, the endpoint ${ours}: the same chain id, another chain (a reference must be on the endpoint's chain)`;
}
