// The header both reports open with, conformance.json and load.json: which report it is, the version of its layout
// (schemas/files/, raised when a reader must change) and the harness that wrote it. One shape, so a tool that
// finds a report file knows what it holds before reading further. Types only: the k6-safe halves read them too.

export type ReportKind = 'rpc-certify-conformance' | 'rpc-certify-load' | 'rpc-certify-conformance-side-by-side' | 'rpc-certify-load-side-by-side';

export interface ReportHeader<K extends ReportKind, V extends number> {
  kind: K;
  schemaVersion: V;
  harness: { name: 'rpc-certify'; version: string };
}
