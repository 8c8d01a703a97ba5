// A check that failed (or could not judge) on an answer saying the history asked for is not kept (error 4444 and its
// kin) says so in its reason, with the depth the history checks found: "pruned", never a generic error.
import { depthText } from '../../core/history.ts';
import { notKept } from '../../core/not-kept.ts';
import type { CheckResult } from './check.ts';

const RPC_ERROR = /error (-?\d+): ([^\n;]*)/;

export function namePruned(checks: CheckResult[]): void {
  const blocks = checks.find((c) => c.history?.resource === 'blocks')?.history;
  const served = blocks ? `the endpoint serves blocks: ${depthText(blocks)} (history/blocks)` : 'the endpoint keeps no history that old';
  for (const c of checks) {
    const said = c.reason?.match(RPC_ERROR);
    if ((c.verdict !== 'fail' && c.verdict !== 'inconclusive') || c.method === 'history' || !said || !notKept(Number(said[1]), said[2] ?? '')) continue;
    c.reason = `${c.reason} [pruned history: ${served}]`;
  }
}
