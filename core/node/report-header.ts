// The report header (core/report-header.ts) filled in with this harness's version.
import type { ReportHeader, ReportKind } from '../report-header.ts';
import { harnessVersion } from './version.ts';

export function reportHeader<K extends ReportKind, V extends number>(kind: K, schemaVersion: V): ReportHeader<K, V> {
  return { kind, schemaVersion, harness: { name: 'rpc-certify', version: harnessVersion } };
}
