// The service spec restated in the project's own words, section by section (shared/spec/node-access-methods.md is
// not in the repository): what docs/spec.md prints, each clause with the checks that enforce it (spec-doc.ts). A
// section a check cites must be here: the type is the clauses' own (clause.ts).
import { METHOD_FACTS, METHODS } from '../../core/methods.ts';
import type { Section } from './clause.ts';

/** A method section's title: the method its row names (core/methods.ts). */
const methodOf = (section: Section): string => METHODS.find((m) => METHOD_FACTS[m].section === section) ?? `§${section}`;

export interface SectionText {
  title: string;
  /** What the section says, a point a line. */
  says: readonly string[];
  /** Its numbered rules, where it has them (a check may cite one: `rule: N`). */
  rules?: Readonly<Record<number, string>>;
}

export const SPEC_TEXT: Readonly<Record<Section, SectionText>> = {
  '1': {
    title: 'What the service does',
    says: [
      'JSON-RPC 2.0 over HTTP POST with `Content-Type: application/json`; one base address per network.',
      'A request has `jsonrpc` ("2.0"), `method` (one of §4), `params` (a positional array) and an integer `id`.',
      'A response has `jsonrpc`, the request\'s `id`, and either `result` or `error`.',
      'Quantities (numbers, gas, values, indexes, block numbers) are 0x-prefixed hex; a hash is 32 bytes of 0x-prefixed hex, an address 20 bytes.',
      'A block tag is one of latest, earliest, pending, safe, finalized.',
    ],
  },
  '2': { title: 'Resources and their fields', says: ['The objects the methods take and answer (§2.1 to §2.5). Per-field types beyond the hex and byte-length notes: not stated.'] },
  '2.1': {
    title: 'Transaction call object (eth_estimateGas\'s input)',
    says: ['Fields from, to, gas, gasPrice, maxPriorityFeePerGas, maxFeePerGas, value, data; all optional but `to` (listed without an optional marker). `data` is the ABI-encoded call.'],
  },
  '2.2': {
    title: 'Block object',
    says: [
      'Answered by eth_getBlockByHash, and by the uncle methods without transactions.',
      'number, hash, nonce and logsBloom are null only for a pending block; hashes 32 bytes, logsBloom 256, nonce 8, miner 20.',
      'totalDifficulty is null in uncle answers; `transactions` holds full objects when the details flag is true, hashes otherwise; `uncles` holds uncle hashes; mixHash is present.',
    ],
  },
  '2.3': {
    title: 'Transaction object',
    says: [
      'Answered by eth_getTransactionByHash and eth_getTransactionByBlockNumberAndIndex.',
      'blockHash, blockNumber and transactionIndex are null only while pending; `to` is null for a creation; r and s are 32 bytes; chainId for EIP-1559 transactions; accessList and the fee caps optional.',
    ],
  },
  '2.4': {
    title: 'Transaction receipt object',
    says: [
      'Answered by eth_getTransactionReceipt, and as the elements of eth_getBlockReceipts.',
      'Exactly one of `root` (32 bytes, before Byzantium) and `status` (0x1 success, 0x0 failure).',
      'contractAddress is the created contract for a creation, else null; `to` null for a creation; effectiveGasPrice equals the gas price before EIP-1559; logsBloom 256 bytes.',
    ],
  },
  '2.5': { title: 'Log object', says: ['address (20 bytes), topics (32-byte hashes), data (hex, may be 0x), blockNumber, blockHash, transactionHash, transactionIndex, logIndex (hex), removed (boolean).'] },
  '3': { title: 'States and transitions', says: ['Only pending is a state: pending items carry null in the fields marked so, and a pending transaction has no receipt.'] },
  '4': { title: 'Endpoints', says: ['Every method is a POST to {base_url}/v3/<API_KEY>; the body is the §1 envelope, the success body carries `result`. Behaviour on missing, extra or malformed params: not stated.'] },
  '4.1': {
    title: methodOf('4.1'),
    says: ['Params: a call object (§2.1) and a block number or tag (listed as required; the example sends only the call). Result: the estimated gas as a hex quantity; nothing is added to the chain; the estimate may exceed the gas really used.'],
    rules: {
      1: 'The gas parameter is capped at 10 times the current block gas limit.',
      2: 'With no gas limit given, the upper bound is the pending block\'s gas limit (an estimate may then fall short for a call needing more).',
      3: 'A REVERT answers an error (§7) with the revert reason decoded into the message.',
      4: 'Forwarding to a partner during an outage exists on higher plans (details not stated).',
    },
  },
  '4.2': { title: methodOf('4.2'), says: ['Params: a 32-byte block hash and the transaction details flag (boolean). Result: a block object (§2.2), or null when no block matches.'] },
  '4.3': { title: methodOf('4.3'), says: ['Params: a hex block number or tag, and the uncle\'s index (hex). Result: the uncle as a block object (§2.2), or null.'] },
  '4.4': { title: methodOf('4.4'), says: ['Params: a 32-byte block hash and the uncle\'s index (hex). Result: the uncle as a block object (§2.2), or null.'] },
  '4.5': { title: methodOf('4.5'), says: ['Params: a hex block number or tag, and the transaction\'s index (hex). Result: a transaction object (§2.3), or null.'] },
  '4.6': { title: methodOf('4.6'), says: ['Param: a 32-byte transaction hash. Result: a transaction object (§2.3), or null.'] },
  '4.7': { title: methodOf('4.7'), says: ['Param: a 32-byte transaction hash. Result: a receipt object (§2.4), or null; a pending transaction has no receipt.'] },
  '4.8': {
    title: methodOf('4.8'),
    says: ['Param: a block number (hex or decimal) or a block tag.'],
    rules: {
      1: 'pending answers the same data as latest.',
      2: 'The result is null when there is no such block.',
      3: 'The result is an array of receipt objects (§2.4), one per transaction of the block, in transaction order; their logs carry the §2.5 fields.',
    },
  },
  '5': { title: 'Authentication', says: ['The API key is the last segment of the request path ({base_url}/v3/<API_KEY>); no authentication header. A missing or invalid key\'s behaviour: not stated.'] },
  '6': { title: 'Events', says: ['None of the methods is a subscription or a notification.'] },
  '7': {
    title: 'Errors',
    says: [
      'An error answer has jsonrpc, id and an error object, and no `result`.',
      'A REVERT in eth_estimateGas: code 3, message "execution reverted: <reason>" with the reason decoded, data the hex ABI-encoded revert payload.',
      'A lookup that finds nothing (block, uncle, transaction, receipt) is no error: the result is null. Other codes and messages: not stated.',
    ],
  },
  '8': {
    title: 'Limits',
    says: [
      'The gas parameter cap (eth_estimateGas, eth_call): 10 times the current block gas limit.',
      'A near-head window on one chain: eth_getTransactionReceipt and eth_getTransactionByHash serve only the latest 128 blocks there (no archive).',
      'Rate limits, request sizes and quotas: not stated.',
    ],
  },
  '9': { title: 'Versioning', says: ['The path carries v3 before the key; jsonrpc must be "2.0". Policy beyond that: not stated.'] },
};
