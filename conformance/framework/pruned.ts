// A check that failed (or could not judge) on an answer saying the history asked for is not kept (error 4444 and its
// kin) says so in its reason, with the depth the history checks found: "pruned", never a generic error.
import { depthText, type HistoryResource } from '../../core/history.ts';
import { notKept } from '../../core/not-kept.ts';
import type { CheckResult } from './check.ts';
import { factsOf } from '../../core/methods.ts';

const RPC_ERROR = /error (-?\d+): ([^\n;]*)/;

/** The history a method's answers come from (the history check that measured it), by its row: state for an estimate,
 * receipts for receipts, transactions for a transaction by hash, blocks (their bodies) for the rest. */
function resourceOf(method: string): HistoryResource {
  const facts = factsOf(method);
  if (facts?.result === 'quantity') return 'state';
  if (facts?.result === 'receipt' || facts?.result === 'block-receipts') return 'receipts';
  return facts?.result === 'transaction' && facts.params[0] === 'txHash' ? 'transactions' : 'blocks';
}

export function namePruned(checks: CheckResult[]): void {
  for (const c of checks) {
    const said = c.reason?.match(RPC_ERROR);
    if ((c.verdict !== 'fail' && c.verdict !== 'inconclusive') || c.method === 'history' || !said || !notKept(Number(said[1]), said[2] ?? '')) continue;
    const resource = resourceOf(c.method);
    const found = checks.find((k) => k.history?.resource === resource)?.history;
    const served = found ? `the endpoint serves ${resource}: ${depthText(found)} (history/${resource})` : `the endpoint says this history is not kept (history/${resource} did not run to measure how deep it is served)`;
    c.reason = `${c.reason} [pruned history: ${served}]`;
  }
}
