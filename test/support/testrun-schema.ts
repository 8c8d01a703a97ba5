// The TestRun schema of the k6-operator release vendored in fixtures/k6-operator (its README says which), as
// an Ajv validator. The API server prunes a field its structural schema does not declare (and keeps no
// error for it), so every object schema here is closed where the CRD does not keep unknown fields: a field
// the operator would never see fails validation instead of vanishing.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

const CRD = new URL('../../fixtures/k6-operator/k6.io_testruns.yaml', import.meta.url);

type Schema = Record<string, unknown>;

interface Crd {
  spec: { group: string; names: { kind: string }; versions: Array<{ name: string; served: boolean; schema: { openAPIV3Schema: Schema } }> };
}

/** Closes each object schema that lists its properties, as pruning does; metadata is ObjectMeta (not in the CRD's schema). */
function pruning(schema: Schema, path: string): Schema {
  const out: Schema = { ...schema };
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  if (properties) {
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, path === '' && k === 'metadata' ? v : pruning(v, `${path}.${k}`)]));
    if (schema['additionalProperties'] === undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true) out['additionalProperties'] = false;
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const inner = schema[key];
    if (inner && typeof inner === 'object') out[key] = pruning(inner as Schema, `${path}[]`);
  }
  return out;
}

let compiled: { apiVersion: string; validate: ValidateFunction } | undefined;

/** apiVersion and kind as the CRD names them, and the served version's schema, closed (compiled once: seconds). */
export function testRunValidator(): { apiVersion: string; validate: ValidateFunction } {
  return (compiled ??= compile());
}

function compile(): { apiVersion: string; validate: ValidateFunction } {
  const crd = parse(readFileSync(CRD, 'utf8')) as Crd;
  const version = crd.spec.versions.find((v) => v.served);
  if (!version || crd.spec.names.kind !== 'TestRun') throw new Error(`${CRD.pathname}: no served TestRun version`);
  const apiVersion = `${crd.spec.group}/${version.name}`;
  const schema = pruning(version.schema.openAPIV3Schema, '');
  // The schema says nothing of apiVersion and kind's values; the API server routes by them.
  const properties = schema['properties'] as Record<string, Schema>;
  const closed = { ...schema, required: ['apiVersion', 'kind', 'metadata', 'spec'], properties: { ...properties, apiVersion: { const: apiVersion }, kind: { const: 'TestRun' } } };
  // int32/int64/date-time formats are Kubernetes' own; x-kubernetes-* keywords are the API server's, not JSON Schema's.
  return { apiVersion, validate: new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(closed) };
}
