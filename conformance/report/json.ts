// conformance.json: the machine-readable report. It is validated before it is written, so a consumer
// can rely on schemas/files/conformance-report.json; a mismatch is a harness bug, never an endpoint's fault.
import schema from '../../schemas/files/conformance-report.json' with { type: 'json' };
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { schemaFaults } from '../../core/node/schema-faults.ts';
import type { ConformanceReport } from './model.ts';

/** The schema faults of a report as it would be serialised ("<pointer> <message>"); empty when valid. */
export const reportFaults = schemaFaults(schema);

export async function writeJsonReport(report: ConformanceReport, path: string): Promise<void> {
  const faults = reportFaults(report);
  if (faults.length > 0) {
    throw new Error(`harness bug: the conformance report does not match schemas/files/conformance-report.json:\n  ${faults.join('\n  ')}`);
  }
  await writeFileAtomic(path, `${JSON.stringify(report, null, 2)}\n`);
}
