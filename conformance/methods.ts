// The eight methods of the service spec, in the order the report lists them.
import estimateGas from './eth_estimateGas.ts';
import blockByHash from './eth_getBlockByHash.ts';
import uncleByNumber from './eth_getUncleByBlockNumberAndIndex.ts';
import uncleByHash from './eth_getUncleByBlockHashAndIndex.ts';
import txByNumberAndIndex from './eth_getTransactionByBlockNumberAndIndex.ts';
import txByHash from './eth_getTransactionByHash.ts';
import receipt from './eth_getTransactionReceipt.ts';
import blockReceipts from './eth_getBlockReceipts.ts';
import type { MethodSuite } from './framework/check.ts';

export const allSuites: MethodSuite[] = [estimateGas, blockByHash, uncleByNumber, uncleByHash, txByNumberAndIndex, txByHash, receipt, blockReceipts];
