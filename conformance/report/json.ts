// conformance.json: the machine-readable report. It is validated before it is written, so a consumer
// can rely on schemas/files/conformance-report.json; a mismatch is a harness bug, never an endpoint's fault.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import schema from '../../schemas/files/conformance-report.json' with { type: 'json' };
import { writeFileAtomic } from '../../core/node/atomic.ts';
import type { ConformanceReport } from './model.ts';

let validate: ValidateFunction | undefined;

/** The schema faults of a report as it would be serialised ("<pointer> <message>"); empty when valid. */
export function reportFaults(report: unknown): string[] {
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(schema);
  // Validate what is written, not the object: undefined fields vanish in JSON and must not count.
  const written: unknown = JSON.parse(JSON.stringify(report) ?? 'null');
  if (validate(written)) return [];
  return (validate.errors ?? []).map(describe);
}

export async function writeJsonReport(report: ConformanceReport, path: string): Promise<void> {
  const faults = reportFaults(report);
  if (faults.length > 0) {
    throw new Error(`harness bug: the conformance report does not match schemas/files/conformance-report.json:\n  ${faults.join('\n  ')}`);
  }
  await writeFileAtomic(path, `${JSON.stringify(report, null, 2)}\n`);
}

function describe(e: ErrorObject): string {
  const extra = e.keyword === 'additionalProperties' ? ` "${String(e.params['additionalProperty'])}"` : '';
  return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
}
