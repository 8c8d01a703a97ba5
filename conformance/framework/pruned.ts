// A check that failed (or could not judge) on an answer saying the history asked for is not kept (error 4444 and its
// kin) says so in its reason, with the depth the history checks found: "pruned", never a generic error.
import { depthText, type HistoryResource } from '../../core/history.ts';
import { notKept } from '../../core/not-kept.ts';
import type { CheckResult } from './check.ts';

const RPC_ERROR = /error (-?\d+): ([^\n;]*)/;

/** The history a method's answers come from (the history check that measured it). */
const RESOURCE_OF: Record<string, HistoryResource> = { eth_estimateGas: 'state', eth_getTransactionByHash: 'transactions', eth_getTransactionReceipt: 'receipts', eth_getBlockReceipts: 'receipts' };

export function namePruned(checks: CheckResult[]): void {
  for (const c of checks) {
    const said = c.reason?.match(RPC_ERROR);
    if ((c.verdict !== 'fail' && c.verdict !== 'inconclusive') || c.method === 'history' || !said || !notKept(Number(said[1]), said[2] ?? '')) continue;
    const resource = RESOURCE_OF[c.method] ?? 'blocks';
    const found = checks.find((k) => k.history?.resource === resource)?.history;
    const served = found ? `the endpoint serves ${resource}: ${depthText(found)} (history/${resource})` : `the endpoint says this history is not kept (history/${resource} did not run to measure how deep it is served)`;
    c.reason = `${c.reason} [pruned history: ${served}]`;
  }
}
