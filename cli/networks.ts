// Building `{base_url}/v3/<KEY>` from the networks table (core/networks.ts).
import { networks } from '../core/networks.ts';
import { UsageError } from '../core/node/errors.ts';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makeOutDir, removeEarlierReports } from '../core/node/atomic.ts';
import { ENDPOINTS_DIR, endpointDir } from '../core/node/side-by-side.ts';
import { positionOnlySecrets, registerSecret, registerUrlSecrets, SHORT_KEY, urlKeySegments } from '../core/redact.ts';

export function networkUrl(name: string, apiKey: string, baseUrl?: string): string {
  const net = networks[name];
  if (!net && !baseUrl) throw new UsageError(`unknown network "${name}"; known: ${Object.keys(networks).join(', ')}`);
  return `${(baseUrl ?? net!.baseUrl).replace(/\/+$/, '')}/v3/${encodeURIComponent(apiKey)}`;
}

/** The chain --network promises (none for a name only --base-url defines), for the endpoint to be checked against. */
export function expectedNetwork(values: { network?: string; url?: string }): { name: string; chainId: string } | undefined {
  if (!values.network) return undefined;
  const net = networks[values.network];
  // With --url, --network names the chain that URL must serve: checked, never silently dropped.
  if (!net && values.url) throw new UsageError(`unknown network "${values.network}" (with --url, --network names the chain the endpoint must serve); known: ${Object.keys(networks).join(', ')}`);
  return net ? { name: values.network, chainId: net.chainId } : undefined;
}

/** --methods a,b checked against the methods there are: a wrong name is a usage error naming the valid ones. */
export function methodList(text: string, known: readonly string[]): string[] {
  const names = text.split(',').map((m) => m.trim()).filter(Boolean);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length || names.length === 0) throw new UsageError(`--methods: unknown method ${unknown.join(', ') || '(none given)'}; valid: ${known.join(', ')}`);
  return names;
}

/** A count: decimal digits only (Number() would take "", "0x10", "1e3" and " 7"), no leading zero, safe. */
export function positive(text: string, flag: string): number {
  const n = Number(text);
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(n)) throw new UsageError(`${flag} takes a positive whole number, got "${text}"`);
  return n;
}

/** --rate-limit: the key's budget in requests a second, above 0 (a fraction allowed: one request every 2 s is 0.5). */
export function perSecond(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n >= MIN_RATE)) throw new UsageError(`${flag} takes a number of requests a second, ${MIN_RATE} or more, such as 40 or 0.5, got "${text}"`);
  return n;
}

/** One request every ~17 minutes: any slower and a run of a few hundred requests outlasts every deadline (and a timer's range). */
const MIN_RATE = 0.001;

/** A TCP port to listen on: 1 to 65535 (0 is "any", which a user asking for a port does not mean). */
export function port(text: string, flag: string): number {
  const n = positive(text, flag);
  if (n > 65535) throw new UsageError(`${flag} takes a port from 1 to 65535, got "${text}"`);
  return n;
}

/** The longest wait a timer takes (node caps setTimeout at 2^31-1 ms, ~24.8 days, and fires at once beyond). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number of milliseconds a timer can wait (--timeout). */
export function milliseconds(text: string, flag: string): number {
  const n = positive(text, flag);
  if (n > MAX_TIMER_MS) throw new UsageError(`${flag} takes at most ${MAX_TIMER_MS} ms (about 24 days), got "${text}"`);
  return n;
}

/**
 * --out, made before anything starts (a usage error naming it when it cannot be), and cleared of the reports an
 * earlier run left there (`names`; `keep`: this run's inputs among them), so a run that ends before writing its own
 * leaves no stale verdict for CI.
 */
export async function outDir(out: string, names: readonly string[], keep: ReadonlyArray<string | undefined> = []): Promise<void> {
  await makeOutDir(out).catch((e: Error) => Promise.reject(new UsageError(`--out ${out}: ${e.message}`)));
  const kept = keep.filter((k): k is string => k !== undefined);
  await removeEarlierReports(out, names, kept);
  // And each endpoint's of an earlier side-by-side run (endpoints/<name>/): none may stay to read as this run's.
  const earlier = await readdir(join(out, ENDPOINTS_DIR), { withFileTypes: true }).catch(() => []);
  await Promise.all(earlier.filter((d) => d.isDirectory()).map((d) => removeEarlierReports(endpointDir(out, d.name), names, kept)));
}

/** A file an option names (or a directory, where it takes one), there and readable: else a usage error naming the option, before anything starts. */
export async function inputFile(path: string, flag: string, opts: { orDirectory?: boolean } = {}): Promise<string> {
  const found = await stat(path).catch((e: NodeJS.ErrnoException) => Promise.reject(new UsageError(`${flag} ${path}: cannot read it (${e.code ?? e.message})`)));
  if (!found.isFile() && !(opts.orDirectory && found.isDirectory())) throw new UsageError(`${flag} ${path}: not a file${opts.orDirectory ? ' or a baseline directory' : ''}`);
  return path;
}

/** Seconds above 0 (--max-head-lag: a lag of 0 would fail every block in flight), one grammar for every command. */
export function seconds(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new UsageError(`${flag} takes a number of seconds above 0, such as 5 or 2.5, got "${text}"`);
  return n;
}

/** --reorg-every: seconds, at most an hour (as --block-time): a timer's range is far beyond, a reorg that rare is none. */
export function reorgEvery(text: string): number {
  const s = seconds(text, '--reorg-every');
  if (s > MAX_BLOCK_TIME_S) throw new UsageError(`--reorg-every takes at most ${MAX_BLOCK_TIME_S} seconds, got "${text}"`);
  return s;
}

/** --block-time: whole seconds (anvil's interval mining), or undefined for a chain that stands still once seeded. */
export function blockTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = positive(text, '--block-time');
  if (s > MAX_BLOCK_TIME_S) throw new UsageError(`--block-time takes at most ${MAX_BLOCK_TIME_S} seconds, got "${text}"`);
  return s;
}

/** A block an hour: slower chains exist nowhere a load test would meet them. */
const MAX_BLOCK_TIME_S = 3600;

/** The endpoint options `conformance` and `load` share. */
export const endpointOptions = {
  url: { type: 'string' },
  network: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
} as const;

/**
 * The endpoint URL from --url, or --network with --api-key (or RPC_CERTIFY_API_KEY); undefined when
 * neither is given. Every secret in it is registered for redaction before anything can print it.
 */
export function resolveEndpoint(values: { url?: string; network?: string; 'api-key'?: string; 'base-url'?: string }): string | undefined {
  const apiKey = values['api-key'] ?? process.env['RPC_CERTIFY_API_KEY'];
  registerSecret(apiKey);
  if (values.url) {
    registerUrlSecrets(values.url);
    return httpUrl(values.url, '--url');
  }
  if (!values.network) return undefined;
  if (!apiKey) throw new UsageError('--network needs --api-key or RPC_CERTIFY_API_KEY');
  return httpUrl(networkUrl(values.network, apiKey, values['base-url']), '--base-url');
}

/** The URL when it is an http(s) one; else a usage error naming the option (not the value, which may hold the key). */
export function httpUrl(url: string, flag: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`${flag} takes an http(s) URL such as https://host/v3/<KEY>; the one given is ${protocol ? `a ${protocol.slice(0, -1)} URL` : 'no URL'}`);
  return url;
}

/**
 * Every output is redacted of the key wherever it occurs: a short key garbles evidence, so a run says so as it starts
 * (once the command line is known good). And what may be the key but is too short to remove from other text without
 * cutting words (positionOnlySecrets: a short last path segment, a short query value) is hidden only where the URL is
 * shown: the run says that too, naming where, never the value. `url`: the one resolveEndpoint() returned.
 */
export function warnShortKey(url: string, name?: string): void {
  const which = name === undefined ? '' : ` (endpoint ${name})`;
  const key = urlKey(url);
  const length = key === undefined ? 0 : [...key].length;
  if (key !== undefined && length < SHORT_KEY) {
    process.stderr.write(
      `rpc-certify: WARNING${which}: the API key is only ${length} character${length === 1 ? '' : 's'} long (under ${SHORT_KEY}): every occurrence of it is redacted from all output, ` +
        `so evidence that happens to hold the same characters (hashes, hex values, JSON words) will read <redacted> in places ` +
        `and targets.lock.json may not be reusable. The reports stay valid JSON. Use a key of ${SHORT_KEY} or more characters for readable evidence.\n`,
    );
  }
  const unremoved = positionOnlySecrets(url);
  if (unremoved.length === 0) return;
  process.stderr.write(
    `rpc-certify: WARNING${which}: ${unremoved.join(', ')} of the URL may hold the API key: hidden wherever the endpoint is shown, but under ${SHORT_KEY} characters, ` +
      `so not removed from other text (it would cut words and hex values). If it is the key, an endpoint that echoes it shows it in the evidence: ` +
      `use a key of ${SHORT_KEY} or more characters, or put it where the key goes ({base_url}/v3/<KEY>).\n`,
  );
}

/** The shortest secret path segment of the URL (the key, in a {base_url}/v3/<KEY> URL), as the endpoint reads it (percent-decoded). */
function urlKey(url: string): string | undefined {
  const decoded = urlKeySegments(url).map((raw) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  });
  return decoded.sort((a, b) => [...a].length - [...b].length)[0];
}

/** Whether the embedded default is chased (fresh reads): known from how it was started, never guessed at sampling. */
export function embeddedChase(blockTimeS: number | undefined): { chased: boolean; why: string } {
  return blockTimeS === undefined ? { chased: false, why: 'the embedded default stands still (--block-time makes it move)' } : { chased: true, why: `the embedded default moves (a block every ${blockTimeS} s)` };
}
