// The service's networks (fixtures/networks.json): base address, chain id, and the extra fields and the
// transaction types each network legitimately adds, which the advisory extra-fields and tx-types checks then
// do not report.
import table from '../fixtures/networks.json' with { type: 'json' };

export interface Network {
  baseUrl: string;
  chainId: string;
  extraFields?: Record<string, string[]>;
  /** Transaction types of the network's own (an L2's deposits, say), beyond the Ethereum ones. */
  txTypes?: string[];
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
