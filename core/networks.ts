// The service's networks (fixtures/networks.json): base address, chain id, and the extra fields each
// network legitimately adds, which the advisory extra-fields checks then do not report.
import table from '../fixtures/networks.json' with { type: 'json' };

export interface Network {
  baseUrl: string;
  chainId: string;
  extraFields?: Record<string, string[]>;
}

export const networks: Record<string, Network> = table.networks as Record<string, Network>;

/** The fields a network adds to a shape ('block', 'transaction', 'receipt'), found by chain id. */
export function allowedExtras(chainId: string, shape: string): { network?: string; fields: Set<string> } {
  const entry = Object.entries(networks).find(([, n]) => n.chainId.toLowerCase() === chainId.toLowerCase());
  return { ...(entry ? { network: entry[0] } : {}), fields: new Set(entry?.[1].extraFields?.[shape] ?? []) };
}
