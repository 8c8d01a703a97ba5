// A report checked against its schema before it is written (schemas/files/), so a consumer can rely on the schema: a
// mismatch is a harness bug, never an endpoint's fault. Compiled once, on first use.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** The faults of a value as it would be serialised ("<pointer> <message>"), against `schema` (with the schemas it refers to); empty when valid. */
export function schemaFaults(schema: object, refs: readonly object[] = []): (value: unknown) => string[] {
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= new Ajv({ allErrors: true, strict: false, schemas: [...refs] }).compile(schema);
    // Validate what is written, not the object: undefined fields vanish in JSON and must not count.
    if (validate(JSON.parse(JSON.stringify(value) ?? 'null'))) return [];
    return (validate.errors ?? []).map(describe);
  };
}

function describe(e: ErrorObject): string {
  const extra = e.keyword === 'additionalProperties' ? ` "${String(e.params['additionalProperty'])}"` : '';
  return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
}
