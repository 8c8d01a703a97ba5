// The service's networks (fixtures/networks.json): base address, chain id, and the extra fields and the
// transaction types each network legitimately adds, which the advisory extra-fields and tx-types checks then
// do not report.
import table from '../fixtures/networks.json' with { type: 'json' };
import type { NearHeadWindow } from './near-head-window.ts';

export interface Network {
  baseUrl: string;
  chainId: string;
  extraFields?: Record<string, string[]>;
  /** Transaction types of the network's own (an L2's deposits, say), beyond the Ethereum ones. */
  txTypes?: string[];
  /**
   * §8's near-head window, in blocks: eth_getTransactionReceipt and eth_getTransactionByHash serve only the latest N.
   * The spec says it holds on "one particular supported chain" without naming it: no network of the shipped table
   * declares it (--near-head-window N does, for a run).
   */
  nearHeadWindow?: number;
}

export const networks: Record<string, Network> = table.networks as Record<string, Network>;

/** The network of a chain id, with its name, if the table knows it. */
export function networkOf(chainId: string): [string, Network] | undefined {
  return Object.entries(networks).find(([, n]) => n.chainId.toLowerCase() === chainId.toLowerCase());
}

/** The fields a network adds to a shape ('block', 'transaction', 'receipt'), found by chain id. */
export function allowedExtras(chainId: string, shape: string): { network?: string; fields: Set<string> } {
  const entry = networkOf(chainId);
  return { ...(entry ? { network: entry[0] } : {}), fields: new Set(entry?.[1].extraFields?.[shape] ?? []) };
}

/** The near-head window a run judges with: --near-head-window (it wins), else the network's of this chain id, else none. */
export function nearHeadWindowOf(chainId: string | undefined, flag: number | undefined): NearHeadWindow | undefined {
  if (flag !== undefined) return { blocks: flag, from: '--near-head-window' };
  const entry = chainId === undefined ? undefined : networkOf(chainId);
  const blocks = entry?.[1].nearHeadWindow;
  return entry && blocks !== undefined ? { blocks, from: `fixtures/networks.json (${entry[0]})` } : undefined;
}
