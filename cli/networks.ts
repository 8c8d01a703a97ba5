// Building `{base_url}/v3/<KEY>` from the networks table (core/networks.ts).
import { networks } from '../core/networks.ts';

export function networkUrl(name: string, apiKey: string, baseUrl?: string): string {
  const net = networks[name];
  if (!net && !baseUrl) throw new UsageError(`unknown network "${name}"; known: ${Object.keys(networks).join(', ')}`);
  return `${(baseUrl ?? net!.baseUrl).replace(/\/+$/, '')}/v3/${encodeURIComponent(apiKey)}`;
}

/** A mistake in the command line: exit code 2 with a one-line reason. */
export class UsageError extends Error {}
