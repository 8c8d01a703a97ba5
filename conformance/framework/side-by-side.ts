// Several endpoints certified in one run (conformance --url a=URL --url b=URL …): each as a run of its own, one after
// another (so they never compete for this machine), on the same targets: discovered once, on the first endpoint
// that serves them (or read from --targets). Every run holds its answers against the others' (the quorum/* checks:
// peers, asked once each per call for the whole run), and the heads of all are read at the same instant before and
// after, so a head lag is relative to the freshest endpoint, not to a clock.
import { setMaxListeners } from 'node:events';
import { type Exchange, RpcClient } from '../../core/node/rpc-client.ts';
import { redactCapped, redactUrl } from '../../core/redact.ts';
import { EndpointUnusable, NO_ANSWER_LIMIT, ReferenceUnusable, type RunOptions, type RunResult, runConformance } from './runner.ts';
import type { Peers } from './quorum.ts';
import { type ChainRead, type NamedEndpoint, readChains, runChain } from '../../core/node/side-by-side.ts';

export interface SideBySideOptions extends Omit<RunOptions, 'url' | 'targets' | 'peers' | 'endpointName'> {
  endpoints: readonly NamedEndpoint[];
  /** Called as each endpoint's run starts (the terminal names it before its progress lines). */
  onEndpoint?: (name: string) => void;
}

/** One endpoint's run: its result, or why it could not be certified at all (unreachable, another chain, …). */
export interface EndpointRun {
  name: string;
  /** Redacted. */
  endpoint: string;
  result?: RunResult;
  unusable?: string;
  /** Never run: the run was stopped (Ctrl-C) before its turn. */
  notRun?: string;
}

/** Every endpoint's head at one instant (read at once), and how far each trails the freshest. */
export interface HeadsAt {
  at: string;
  /** `behind`: blocks behind the freshest endpoint on the same chain (chainId) at that instant. */
  heads: Array<{ name: string; chainId?: string; head?: number; behind?: number; error?: string }>;
}

export interface SideBySideResult {
  runs: EndpointRun[];
  /** The endpoint whose discovery gave the targets every run used, or the --targets file. */
  targetsFrom?: string;
  /** The chain the run certifies: the one most endpoints serve (core/node/side-by-side.ts). */
  chain?: { chainId: string; genesis?: string; members: string[]; tie?: string };
  heads: { start: HeadsAt; end: HeadsAt };
}

/**
 * The endpoints side by side as each one's quorum checks see the others: one client each, every call asked of an
 * endpoint once for the whole run, whichever endpoint's checks asked it first.
 */
export class PeerPoll {
  readonly clients: Map<string, RpcClient>;
  private readonly memo = new Map<string, Promise<Exchange>>();
  constructor(
    private readonly endpoints: readonly NamedEndpoint[],
    opts: Pick<RunOptions, 'timeoutMs' | 'concurrency' | 'ca' | 'rateLimit' | 'signal' | 'methods'>,
  ) {
    this.methods = opts.methods;
    // Every peer call in flight listens to Ctrl-C: the quorum asks them all at once, more than Node's default of 10.
    if (opts.signal) setMaxListeners(0, opts.signal);
    this.clients = new Map(endpoints.map((e) => [e.name, new RpcClient({ url: e.url, timeoutMs: opts.timeoutMs ?? 10_000, concurrency: opts.concurrency ?? 8, ...(opts.ca ? { ca: opts.ca } : {}), ...(opts.rateLimit ? { ratePerS: opts.rateLimit } : {}), ...(opts.signal ? { signal: opts.signal } : {}), noAnswerLimit: NO_ANSWER_LIMIT })]));
  }

  private readonly methods: readonly string[] | undefined;

  private ask(name: string, method: string, params: unknown[]): Promise<Exchange> {
    const key = JSON.stringify([name, method, params]);
    let pending = this.memo.get(key);
    if (!pending) this.memo.set(key, (pending = this.clients.get(name)!.exchange(method, params)));
    return pending;
  }

  /**
   * The others, as `self`'s checks see them: only those known to serve the same chain (`chains`: each endpoint's chain
   * id as read at the start); an endpoint on another chain, or that gave none, never votes.
   */
  peersOf(self: string, chains?: ReadonlyMap<string, string | undefined>): Peers {
    const mine = chains?.get(self);
    const names = this.endpoints.map((e) => e.name).filter((n) => n !== self && (!chains || (mine !== undefined && chains.get(n) === mine)));
    return { self, names, ...(this.methods ? { methods: this.methods } : {}), ask: (method, params) => Promise.all(names.map(async (name) => ({ name, exchange: await this.ask(name, method, params) }))) };
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}

export async function runSideBySide(opts: SideBySideOptions): Promise<SideBySideResult> {
  const { endpoints, onEndpoint, ...settings } = opts;
  const poll = new PeerPoll(endpoints, opts);
  const clients = poll.clients;
  try {
    const reads = await readChains(clients);
    const chain = runChain(reads);
    // Peers are the endpoints of the run's chain: one on another chain, or that gave none, never votes.
    const chains = new Map(reads.map((r) => [r.name, chain?.members.includes(r.name) ? r.chainId : undefined]));
    const start: HeadsAt = { at: new Date().toISOString(), heads: behindFreshest(reads) };
    const runs: EndpointRun[] = [];
    let targets: RunResult['targets'];
    let targetsFrom = opts.targetsFile;
    for (const e of endpoints) {
      if (opts.signal?.aborted) {
        runs.push({ name: e.name, endpoint: redactUrl(e.url), notRun: `not run: interrupted by ${String(opts.signal.reason)} before its turn` });
        continue;
      }
      const elsewhere = chain?.others.get(e.name);
      if (elsewhere) {
        runs.push({ name: e.name, endpoint: redactUrl(e.url), unusable: redactCapped(elsewhere, 600) });
        continue;
      }
      onEndpoint?.(e.name);
      try {
        // Targets at or below the lowest head of the run's chain: an endpoint a few blocks behind has every one of them.
        const below = chain?.lowestHead !== undefined ? { discoveryHead: BigInt(chain.lowestHead) } : {};
        const result = await runConformance({ ...settings, url: e.url, endpointName: e.name, peers: poll.peersOf(e.name, chains), ...(targets ? { targets } : below) });
        if (!targets && result.targets) {
          targets = result.targets;
          targetsFrom ??= e.name;
        }
        runs.push({ name: e.name, endpoint: redactUrl(e.url), result });
      } catch (err) {
        // The reference (--reference-url) not usable is no endpoint's fault: the run ends, naming it, as a run of one does.
        if (!(err instanceof EndpointUnusable) || err instanceof ReferenceUnusable) throw err;
        runs.push({ name: e.name, endpoint: redactUrl(e.url), unusable: redactCapped(err.message, 400) });
      }
    }
    const end: HeadsAt = { at: new Date().toISOString(), heads: behindFreshest(await readChains(clients, chains)) };
    return { runs, ...(targetsFrom ? { targetsFrom } : {}), ...(chain ? { chain: { chainId: chain.chainId, ...(chain.genesis ? { genesis: chain.genesis } : {}), members: chain.members, ...(chain.tie ? { tie: chain.tie } : {}) } } : {}), heads: { start, end } };
  } finally {
    poll.close();
  }
}

/** Each head against the freshest on the same chain at that instant (the genesis is the chain's, not the head's: left out). */
function behindFreshest(read: readonly ChainRead[]): HeadsAt['heads'] {
  return read.map(({ genesis: _g, ...r }) => {
    const level = read.filter((x) => x.chainId === r.chainId).flatMap((x) => (x.head === undefined ? [] : [x.head]));
    return r.head === undefined ? r : { ...r, behind: Math.max(...level) - r.head };
  });
}
