// The header both reports open with, conformance.json and load.json: which report it is, the version of its layout
// (schemas/files/, raised when a reader must change) and the harness that wrote it. One shape, so a tool that
// finds a report file knows what it holds before reading further.
import { harnessVersion } from './version.ts';

export type ReportKind = 'rpc-certify-conformance' | 'rpc-certify-load';

export interface ReportHeader<K extends ReportKind, V extends number> {
  kind: K;
  schemaVersion: V;
  harness: { name: 'rpc-certify'; version: string };
}

export function reportHeader<K extends ReportKind, V extends number>(kind: K, schemaVersion: V): ReportHeader<K, V> {
  return { kind, schemaVersion, harness: { name: 'rpc-certify', version: harnessVersion } };
}
