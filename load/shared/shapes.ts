// Schema validation of a sampled share of answers, with the conformance suite's own validators.
// In k6 the bundler swaps Ajv for validators generated at bundle time (see bundle.ts).
import { validateShape } from '../../core/schemas.ts';
import defs from '../../schemas/rpc/defs.json' with { type: 'json' };
import type { Envelope } from './classify.ts';
import { METHOD_FACTS, type RpcMethod } from '../../core/methods.ts';

const QUANTITY = new RegExp(defs.definitions.quantity.pattern);

/** The first schema fault of an answer ("/transactions/0/hash must match ..."), or undefined when it conforms. */
export function shapeFault(method: RpcMethod, envelope: Envelope): string | undefined {
  const faults = validateShape('envelope', envelope);
  const result = envelope.result;
  if (faults.length === 0 && result !== null && result !== undefined) {
    const shape = METHOD_FACTS[method].result;
    if (shape === 'quantity') return typeof result === 'string' && QUANTITY.test(result) ? undefined : '/result must be a hex quantity';
    faults.push(...validateShape(shape, result).map((f) => ({ ...f, pointer: `/result${f.pointer === '/' ? '' : f.pointer}` })));
  }
  const first = faults[0];
  return first && `${first.pointer} ${first.message}`;
}
