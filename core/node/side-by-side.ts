// Several endpoints side by side: their names, where each one's own reports go, and the chain they serve. They must
// serve one chain, or their answers are not to the same questions. Each one's chain
// id, genesis hash and head are read at once; the chain most of them serve is the run's (the same chain id is not
// enough: two devnets, a reset testnet share one, so the genesis must agree too), and an endpoint on another chain is
// named, never certified against targets or a corpus of a chain it does not serve. Whichever endpoint comes first does
// not decide what the chain is.
import { join } from 'node:path';
import { q } from '../hex.ts';
import { redactCapped } from '../redact.ts';
import type { RpcClient } from './rpc-client.ts';
import { genesisHashOf } from './same-chain.ts';

/** An endpoint of a side-by-side run, by the name every output shows instead of its URL. */
export interface NamedEndpoint {
  name: string;
  url: string;
}

/** Where each endpoint's own reports go, under --out. */
export const ENDPOINTS_DIR = 'endpoints';
export const endpointDir = (out: string, name: string) => join(out, ENDPOINTS_DIR, name);

export interface ChainRead {
  name: string;
  chainId?: string;
  genesis?: string;
  head?: number;
  /** Why the chain or the head could not be read (unreachable, not JSON-RPC, no block number a chain can have). */
  error?: string;
}

/**
 * Every endpoint's chain id, genesis and head, asked at once; given the chains read before (`known`: each endpoint's
 * chain id, or undefined), the heads only, each under its chain.
 */
export async function readChains(clients: ReadonlyMap<string, RpcClient>, known?: ReadonlyMap<string, string | undefined>): Promise<ChainRead[]> {
  return Promise.all(
    [...clients].map(async ([name, c]): Promise<ChainRead> => {
      const knownId = known?.get(name);
      const was = knownId === undefined ? { name } : { name, chainId: knownId };
      try {
        const [id, head, genesis] = await Promise.all([known ? undefined : c.call<string>('eth_chainId', []).then(q), c.call<string>('eth_blockNumber', []).then(q), known ? undefined : genesisHashOf(c)]);
        if (!known && id === undefined) return { name, error: 'eth_chainId answered no chain id' };
        const chain = id === undefined ? was : { name, chainId: `0x${id.toString(16)}`, ...(genesis ? { genesis } : {}) };
        // A head past 2^53 is no chain's: named, never held against the others (nor the others against it).
        return head === undefined || head > BigInt(Number.MAX_SAFE_INTEGER) ? { ...chain, error: 'eth_blockNumber answered no block number a chain can have' } : { ...chain, head: Number(head) };
      } catch (err) {
        return { ...was, error: redactCapped((err as Error).message, 200) };
      }
    }),
  );
}

export interface RunChain {
  chainId: string;
  genesis?: string;
  /** The endpoints serving it, in the order given. */
  members: string[];
  /** The lowest head among them: every one of them has every block at or below it. */
  lowestHead?: number;
  /** Endpoints on another chain, with why (the tie too, where there is one). */
  others: Map<string, string>;
  /** As many endpoints serve another chain: the first endpoint's was taken, and the report says so. */
  tie?: string;
}

/** The chain most endpoints serve (the first endpoint's among equals); undefined when none gave its chain. */
export function runChain(reads: readonly ChainRead[]): RunChain | undefined {
  const known = reads.filter((r): r is ChainRead & { chainId: string } => r.chainId !== undefined);
  // An endpoint that does not serve block 0 (history expired) joins the chain of its id: its genesis cannot be compared.
  const key = (r: ChainRead) => `${r.chainId}/${r.genesis ?? ''}`;
  const groups = new Map<string, string[]>();
  for (const r of known.filter((x) => x.genesis)) groups.set(key(r), [...(groups.get(key(r)) ?? []), r.name]);
  for (const r of known.filter((x) => !x.genesis)) {
    const same = [...groups].filter(([k]) => k.startsWith(`${r.chainId}/`)).sort((a, b) => b[1].length - a[1].length)[0];
    if (same) same[1].push(r.name);
    else groups.set(key(r), [...(groups.get(key(r)) ?? []), r.name]);
  }
  const order = (name: string) => reads.findIndex((r) => r.name === name);
  const ranked = [...groups].sort((a, b) => b[1].length - a[1].length || Math.min(...a[1].map(order)) - Math.min(...b[1].map(order)));
  const [top, next] = ranked;
  if (!top) return undefined;
  const members = top[1].sort((a, b) => order(a) - order(b));
  const first = known.find((r) => r.name === members[0])!;
  const heads = reads.filter((r) => members.includes(r.name) && r.head !== undefined).map((r) => r.head!);
  const describe = (r: ChainRead) => `chain ${BigInt(r.chainId!)}${r.genesis ? ` (genesis ${r.genesis})` : ''}`;
  const tie = next && next[1].length === top[1].length ? `as many endpoints serve another chain (${next[1].join(', ')}) as this one (${members.join(', ')}): the first endpoint's was taken` : undefined;
  const others = new Map(known.filter((r) => !members.includes(r.name)).map((r) => [r.name, `it serves ${describe(r)}, ${members.join(', ')} ${describe(first)}: not the chain the run certifies${tie ? ` (${tie})` : ''}`]));
  return {
    chainId: first.chainId,
    ...(first.genesis ? { genesis: first.genesis } : {}),
    members,
    ...(heads.length ? { lowestHead: Math.min(...heads) } : {}),
    others,
    ...(tie ? { tie } : {}),
  };
}
