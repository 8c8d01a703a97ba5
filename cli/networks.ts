// The service's networks (fixtures/networks.json) and building `{base_url}/v3/<KEY>` from them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Network {
  baseUrl: string;
  chainId: string;
  extraFields?: Record<string, string[]>;
}

const table = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/networks.json', import.meta.url)), 'utf8')) as { networks: Record<string, Network> };

export const networks: Record<string, Network> = table.networks;

export function networkUrl(name: string, apiKey: string, baseUrl?: string): string {
  const net = networks[name];
  if (!net && !baseUrl) throw new UsageError(`unknown network "${name}"; known: ${Object.keys(networks).join(', ')}`);
  return `${(baseUrl ?? net!.baseUrl).replace(/\/+$/, '')}/v3/${encodeURIComponent(apiKey)}`;
}

/** A mistake in the command line: exit code 2 with a one-line reason. */
export class UsageError extends Error {}
