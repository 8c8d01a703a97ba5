// Ajv validators for the shapes in schemas/: the one source of truth, used by the conformance checks
// and bundled into the k6 scenarios.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import defs from '../schemas/rpc/defs.json' with { type: 'json' };
import envelope from '../schemas/rpc/envelope.json' with { type: 'json' };
import error from '../schemas/rpc/error.json' with { type: 'json' };
import log from '../schemas/rpc/log.json' with { type: 'json' };
import receipt from '../schemas/rpc/receipt.json' with { type: 'json' };
import blockReceipts from '../schemas/rpc/block-receipts.json' with { type: 'json' };
import transaction from '../schemas/rpc/transaction.json' with { type: 'json' };
import header from '../schemas/rpc/header.json' with { type: 'json' };
import block from '../schemas/rpc/block.json' with { type: 'json' };
import uncle from '../schemas/rpc/uncle.json' with { type: 'json' };
import quantity from '../schemas/rpc/quantity.json' with { type: 'json' };

export const shapeSchemas = { envelope, error, log, receipt, 'block-receipts': blockReceipts, transaction, header, block, uncle, quantity } as const;
export type ShapeName = keyof typeof shapeSchemas;

export interface SchemaFault {
  /** JSON pointer into the validated value */
  pointer: string;
  message: string;
}

/** The options the validators are compiled with, here and in the k6 bundle's generated code. */
export const AJV_OPTIONS = { allErrors: true, strict: false } as const;

let compiled: Map<ShapeName, ValidateFunction> | undefined;

function validators(): Map<ShapeName, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ ...AJV_OPTIONS, schemas: [defs, ...Object.values(shapeSchemas)] });
  compiled = new Map((Object.keys(shapeSchemas) as ShapeName[]).map((name) => [name, ajv.getSchema(`${name}.json`)!]));
  return compiled;
}

/** Validates a value against a named shape; never throws, whatever the input. */
export function validateShape(name: ShapeName, value: unknown): SchemaFault[] {
  const validate = validators().get(name)!;
  if (validate(value)) return [];
  return condense(validate.errors ?? []);
}

// oneOf/anyOf report every branch; keep the most specific faults (deepest pointer first) and drop the
// combinator summaries, so a reader sees "/transactions/0/hash must match pattern" and not "must match exactly one schema".
function condense(errors: ErrorObject[]): SchemaFault[] {
  const faults = errors
    .filter((e) => !['oneOf', 'anyOf', 'allOf', 'if', 'not'].includes(e.keyword) || errors.length === 1)
    .map((e) => ({ pointer: e.instancePath || '/', message: describe(e) }));
  const unique = [...new Map(faults.map((f) => [`${f.pointer} ${f.message}`, f])).values()];
  if (unique.length === 0) return errors.slice(0, 1).map((e) => ({ pointer: e.instancePath || '/', message: describe(e) }));
  return unique.sort((a, b) => b.pointer.split('/').length - a.pointer.split('/').length);
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'pattern') return `must match ${String(e.params['pattern'])}`;
  if (e.keyword === 'required') return `missing required field "${String(e.params['missingProperty'])}"`;
  if (e.keyword === 'enum') return `must be one of ${JSON.stringify(e.params['allowedValues'])}`;
  if (e.keyword === 'not') return 'must not have this combination of fields';
  return e.message ?? e.keyword;
}

/**
 * The fields a shape declares, each with where it comes from: 'spec' for a field the service spec lists,
 * or the protocol source (EIP, execution-apis) its schema names in x-origin for a field the spec leaves out.
 * Anything else in a response is neither: reported by the advisory extra-fields checks.
 */
export function fieldOrigins(name: ShapeName): Map<string, string> {
  const schemas = name === 'block' || name === 'uncle' ? [header, shapeSchemas[name]] : [shapeSchemas[name]];
  const out = new Map<string, string>();
  for (const schema of schemas) {
    for (const [field, def] of Object.entries((schema as { properties?: Record<string, { 'x-origin'?: string }> }).properties ?? {})) {
      if (!out.has(field) || def['x-origin']) out.set(field, def['x-origin'] ?? 'spec');
    }
  }
  return out;
}
