// A reference node (--reference-url): a node the user trusts on the same chain, which the reference/* checks compare
// the endpoint with (conformance/reference.ts). Opened by the runner before discovery: a reference that cannot
// answer, or serves another chain, ends the run before any check (exit 2). What the checks find is kept here and
// becomes the report's `run.reference`: the head lag at the start and the end, and per method the agreement.
import { type Exchange, type RpcClient, resultOf } from '../../core/node/rpc-client.ts';
import type { Difference } from '../../core/answer-diff.ts';

/** The head lag read once: the endpoint's eth_blockNumber between two reads of the reference's. */
export interface HeadLag {
  endpoint: number;
  referenceBefore: number;
  referenceAfter: number;
  /** Blocks the endpoint trails the reference's earlier read (0 when it does not), and as seconds of chain time (core/head-lag.ts). */
  behindBlocks: number;
  behindSeconds: number;
  /** Blocks the reference's later read trails the endpoint (0 when it does not): the reference is stale, not the endpoint. */
  referenceBehindBlocks: number;
  referenceBehindSeconds: number;
  /** The chain's block interval over the blocks the endpoint lacks, when it lacks 4 or more (fewer are within any block allowance). */
  blockTimeS?: number;
}

/** Per method: the calls compared with the reference, those that agreed, and every difference with both answers. */
export interface MethodAgreement {
  method: string;
  compared: number;
  agreed: number;
  /** Calls not compared, with why (the reference has no such object, answered an error, another block at that number). */
  notCompared: string[];
  differences: Array<Difference & { call: string }>;
  /** Fields one side serves and the other lacks, and values an allowance left uncompared (noted, not differences). */
  noted: string[];
}

/** The report's `run.reference`. */
export interface ReferenceMeta {
  /** Redacted. */
  endpoint: string;
  chainId: string;
  clientVersion?: string;
  /** The allowance a head lag is held to, in seconds, and in blocks where blocks come a second or more apart (core/head-lag.ts). */
  maxHeadLagS: number;
  maxHeadLagBlocks: number;
  /** The lag as judged at the start and at the end of the checks (after a second read when the first was over the allowance). */
  headLag: { start?: HeadLag; end?: HeadLag };
  agreement: MethodAgreement[];
  /** Why the reference stopped answering mid-run: the checks that needed it after that are inconclusive. */
  failed?: string;
  /** Requests sent to the reference (the run's requestCount counts the endpoint's only). */
  requestCount: number;
}

/** The reference as the checks see it (RunState.reference). */
export interface ReferenceState {
  client: RpcClient;
  /** The reference's answers shared between checks (same method and params). */
  memo: Map<string, Promise<Exchange>>;
  /** The methods the run compares (its --methods, or all eight). */
  compare: readonly string[];
  meta: ReferenceMeta;
  failed?: string;
  /** The reference's first transaction of each type over the blocks discovery walked (absent.ts), read once; undefined when it failed. */
  typeCensus?: Promise<Record<string, string> | undefined>;
}

/** Why a reference cannot serve the run: the runner turns it into an unusable endpoint (exit 2), naming the reference. */
export class ReferenceRefused extends Error {}

/** The reference's chain id and client, read before discovery: unreachable, not JSON-RPC or another chain is refused. */
export async function openReference(client: RpcClient, endpointChainId: string): Promise<{ chainId: string; clientVersion?: string }> {
  let chainId: unknown;
  try {
    chainId = resultOf(await client.exchange('eth_chainId', []));
  } catch (err) {
    throw new ReferenceRefused(`the reference (--reference-url) gave no chain id: ${(err as Error).message}`);
  }
  if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainId)) throw new ReferenceRefused(`the reference (--reference-url) answered eth_chainId with ${JSON.stringify(chainId)?.slice(0, 80)}, not a chain id`);
  if (BigInt(chainId) !== BigInt(endpointChainId)) {
    throw new ReferenceRefused(`the reference (--reference-url) serves chain ${BigInt(chainId)} (${chainId}), the endpoint chain ${BigInt(endpointChainId)} (${endpointChainId}): a reference must be on the endpoint's chain`);
  }
  const clientVersion = await client.call<string>('web3_clientVersion', []).catch(() => undefined);
  return { chainId, ...(typeof clientVersion === 'string' ? { clientVersion } : {}) };
}
