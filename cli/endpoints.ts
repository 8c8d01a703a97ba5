// The endpoints of `conformance` and `load`: one (--url URL, or --network with --api-key, as ever), or several side
// by side, named: --url NAME=URL given more than once, or --endpoints FILE (a JSON list of {name, url}, where
// ${VAR} in a URL is read from the environment, so the file holds no key). Every key is registered for redaction
// before anything can print it; names appear in every output instead of URLs.
import { readFile } from 'node:fs/promises';
import { registerSecret, registerUrlSecrets, SHORT_KEY } from '../core/redact.ts';
import { UsageError } from '../core/node/errors.ts';
import type { NamedEndpoint } from '../core/node/side-by-side.ts';
import { endpointOptions, httpUrl, resolveEndpoint, warnShortKey } from './networks.ts';

/** The endpoint options of the commands that take several: --url repeated, --endpoints. */
export const severalEndpointOptions = {
  ...endpointOptions,
  url: { type: 'string', multiple: true },
  endpoints: { type: 'string' },
} as const;

/** The short-key warnings (warnShortKey), once the whole command line is known good. */
export function warnShortKeys(chosen: Endpoints): void {
  for (const e of 'one' in chosen ? [chosen.one] : 'several' in chosen ? chosen.several : []) warnShortKey(e.url, e.name);
}

/** NAME=URL: a name of letters, digits, _ and -, then = and a scheme (a bare URL has a colon before any =). */
const NAMED = /^([A-Za-z0-9_-]{1,64})=([A-Za-z][A-Za-z0-9+.-]*:.*)$/s;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The most endpoints side by side: each is certified in turn, so more would be a long run. */
export const MAX_ENDPOINTS = 16;

export type Endpoints = { one: { url: string; name?: string } } | { several: NamedEndpoint[] } | { none: true };

/** What the command line names: one endpoint, several side by side, or none (the command says what it needs). */
export async function endpointsGiven(values: { url?: string[]; endpoints?: string; network?: string; 'api-key'?: string; 'base-url'?: string }): Promise<Endpoints> {
  const urls = values.url ?? [];
  if (values.endpoints !== undefined && urls.length) throw new UsageError('give --endpoints FILE or --url, not both');
  if ((values.endpoints !== undefined || urls.length > 1) && values['api-key'] !== undefined) throw new UsageError('--api-key goes with one --network endpoint; side by side, each URL carries its key (in --endpoints, as ${VAR} from the environment)');
  const named = values.endpoints !== undefined ? await endpointsFile(values.endpoints) : urls.length > 1 ? urls.map((u, i) => namedUrl(u, `--url (the ${ordinal(i + 1)})`)) : undefined;
  if (!named) {
    const [only] = urls;
    const m = only === undefined ? null : NAMED.exec(only);
    const url = resolveEndpoint({ ...values, url: m ? m[2] : only });
    if (!url) return { none: true };
    return { one: { url, ...(m?.[1] ? { name: m[1] } : {}) } };
  }
  const seen = new Set<string>();
  for (const e of named) {
    if (seen.has(e.name)) throw new UsageError(`endpoint name "${e.name}" is given twice: each endpoint needs a name of its own`);
    seen.add(e.name);
  }
  if (named.length > MAX_ENDPOINTS) throw new UsageError(`at most ${MAX_ENDPOINTS} endpoints side by side, got ${named.length}`);
  return named.length === 1 ? { one: named[0]! } : { several: named };
}

/** --url NAME=URL, its key registered for redaction; a bare URL among several is refused (each needs a name). */
function namedUrl(text: string, flag: string): NamedEndpoint {
  const m = NAMED.exec(text);
  if (!m) {
    // The value may hold a key: registered before the error could quote anything.
    registerUrlSecrets(text.replace(/^[^=]*=/, ''));
    throw new UsageError(`${flag}: with several endpoints, name each one: --url NAME=URL (a name of 1 to 64 letters, digits, _ and -), e.g. --url infura=https://host/v3/<KEY>`);
  }
  registerUrlSecrets(m[2]!);
  return { name: m[1]!, url: httpUrl(m[2]!, `${flag} ${m[1]}`) };
}

/** --endpoints FILE: [{"name": "a", "url": "https://host/v3/${A_KEY}"}, …]; each ${VAR} read from the environment. */
async function endpointsFile(path: string): Promise<NamedEndpoint[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--endpoints ${path}: ${(err as NodeJS.ErrnoException).code ?? `not JSON (${(err as Error).message.replace(/\s+/g, ' ').slice(0, 120)})`}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new UsageError(`--endpoints ${path}: not a list of {"name", "url"}`);
  return parsed.map((entry: unknown, i) => {
    const o = (entry ?? {}) as Record<string, unknown>;
    const where = `--endpoints ${path}: entry ${i}`;
    if (typeof o['name'] !== 'string' || !NAME.test(o['name']) || typeof o['url'] !== 'string') throw new UsageError(`${where} needs a name (1 to 64 letters, digits, _ and -) and a url`);
    const extra = Object.keys(o).filter((k) => k !== 'name' && k !== 'url');
    if (extra.length) throw new UsageError(`${where} (${o['name']}): unknown field(s) ${extra.join(', ')}: an entry is {"name", "url"}`);
    const url = o['url'].replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const value = process.env[name];
      if (value === undefined || value === '') throw new UsageError(`${where} (${o['name']}): its url reads \${${name}}, which is not set in the environment`);
      // A value long enough to be a key is one wherever it lands; a short one (a port, a version) only where the URL keeps its key.
      if ([...value].length >= SHORT_KEY) registerSecret(value);
      return value;
    });
    registerUrlSecrets(url);
    return { name: o['name'], url: httpUrl(url, `${where} (${o['name']})`) };
  });
}

function ordinal(n: number): string {
  return `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;
}
