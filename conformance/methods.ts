// The suites of the eight methods, in the order of the method table (core/methods.ts), and the service-wide suite.
import estimateGas from './eth_estimateGas.ts';
import blockByHash from './eth_getBlockByHash.ts';
import uncleByNumber from './eth_getUncleByBlockNumberAndIndex.ts';
import uncleByHash from './eth_getUncleByBlockHashAndIndex.ts';
import txByNumberAndIndex from './eth_getTransactionByBlockNumberAndIndex.ts';
import txByHash from './eth_getTransactionByHash.ts';
import receipt from './eth_getTransactionReceipt.ts';
import blockReceipts from './eth_getBlockReceipts.ts';
import service from './service.ts';
import history from './history.ts';
import { METHODS } from '../core/methods.ts';
import type { MethodSuite } from './framework/check.ts';
import { robustnessChecks } from './framework/robustness.ts';
import { headNeverGoesBack } from './framework/head.ts';
import { afterReorg } from './framework/after-reorg.ts';
import { everyAnswerChecks } from './framework/every-answer.ts';
import { reference, referenceStart } from './reference.ts';
import { quorum } from './quorum.ts';

const suites = [estimateGas, blockByHash, uncleByNumber, uncleByHash, txByNumberAndIndex, txByHash, receipt, blockReceipts];
// One suite per method of the table, in its order: a method added there without a suite stops every run here.
const methodSuites: MethodSuite[] = METHODS.map((m) => {
  const suite = suites.find((s) => s.method === m);
  if (!suite) throw new Error(`harness bug: no conformance suite for ${m} (core/methods.ts)`);
  return suite;
});
// The malformed-params checks are the same for every method: added here, after each method's own checks.
for (const suite of methodSuites) robustnessChecks(suite);

// Last of the run, whatever else the service suite gains: they judge every answer and every head read before them.
everyAnswerChecks(service);
afterReorg(service);
headNeverGoesBack(service);

/**
 * The head lag against a reference first, the eight methods, the answers compared with the reference and its head lag
 * at the end, the answers held against other endpoints side by side, how deep history is served, then the service-wide checks (transport, authentication, the head; the head never going back is last).
 */
export const allSuites: MethodSuite[] = [referenceStart, ...methodSuites, reference, quorum, history, service];
