// Go profiles of a running k6 (its REST API, with --profiling-enabled) and what `go tool pprof` reads in them:
// where a generator's CPU goes, and which allocation sites hold the memory it gained.
import { writeFile } from 'node:fs/promises';
import { run } from '../../core/node/tools/go-install.ts';

/** Fetches a profile from k6's REST API into `file`: `profile?seconds=N` (CPU) or `heap?gc=1` (live memory after a collection). */
export async function fetchProfile(api: string, what: string, file: string): Promise<void> {
  const res = await fetch(`${api}/debug/pprof/${what}`);
  if (!res.ok) throw new Error(`k6's pprof answered ${res.status} to ${what}`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
}

export interface PprofRow {
  flat: number;
  cum: number;
  name: string;
}

/** `go tool pprof -top` of a profile (against `base` when given), in `unit` (ms for CPU, kB for memory), every node. `total` is the
 * profile's total (with `base`, the later profile's, not the difference: sum the rows' `flat` for that). */
export async function pprofTop(binary: string, file: string, opts: { unit: 'ms' | 'kB'; cum?: boolean; base?: string; sampleIndex?: string }): Promise<{ total: number; rows: PprofRow[] }> {
  const args = ['tool', 'pprof', '-top', '-nodecount=100000', '-nodefraction=0', '-edgefraction=0', `-unit=${opts.unit}`, ...(opts.cum ? ['-cum'] : []), ...(opts.base ? ['-diff_base', opts.base] : []), ...(opts.sampleIndex ? [`-sample_index=${opts.sampleIndex}`] : []), binary, file];
  const { stdout } = await run('go', args, { maxBuffer: 64 * 1024 * 1024 }).catch((e: Error) => {
    throw new Error(`go tool pprof failed (the profile figures need Go, as the tools' setup does): ${e.message}`);
  });
  const total = Number(/Total samples = (-?[\d.]+)|of (-?[\d.]+)\w* total/.exec(stdout)?.slice(1).find((x) => x !== undefined) ?? NaN);
  const rows: PprofRow[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^\s*(-?[\d.]+)\w*\s+-?[\d.]+%\s+-?[\d.]+%\s+(-?[\d.]+)\w*\s+-?[\d.]+%\s+(.+)$/.exec(line);
    if (m) rows.push({ flat: Number(m[1]), cum: Number(m[2]), name: (m[3] ?? '').trim() });
  }
  return { total, rows };
}

/** Where k6's CPU went, by the goroutine roots that own it; `other` is what none of them holds (the scheduler, timers, syscalls outside them). */
export const CPU_PARTS = {
  /** http.post itself (building the request, waiting on the transport, the Response) and the transport's own goroutines. */
  http: ['go.k6.io/k6/v2/js/modules/k6/http.(*Client).Request', 'net/http.(*persistConn).readLoop', 'net/http.(*persistConn).writeLoop'],
  /** The script's JavaScript, with what it calls but http.post: metric adds, k6/crypto, SharedArray reads, JSON. */
  script: ['github.com/grafana/sobek.(*vm).run'],
  /** The metric pipeline: its outputs, each flushed periodically (bare k6: the threshold/summary ingester and the summary; the harness: OpenTelemetry). */
  metrics: ['go.k6.io/k6/v2/output.(*PeriodicFlusher).run', 'go.k6.io/k6/v2/lib.(*GroupSummary).Start.func1'],
  gc: ['runtime.gcBgMarkWorker'],
} as const;

export type CpuParts = Record<keyof typeof CPU_PARTS | 'other', number>;

/** The CPU profile split into CPU_PARTS, in ms (the script's part without http.post, which it calls). */
export function cpuParts(top: { total: number; rows: PprofRow[] }): CpuParts {
  const cum = (name: string) => top.rows.find((r) => r.name === name)?.cum ?? 0;
  const sum = (names: readonly string[]) => names.reduce((a, n) => a + cum(n), 0);
  const http = sum(CPU_PARTS.http);
  const script = Math.max(0, sum(CPU_PARTS.script) - cum(CPU_PARTS.http[0]));
  const metrics = sum(CPU_PARTS.metrics);
  const gc = sum(CPU_PARTS.gc);
  return { http, script, metrics, gc, other: Math.max(0, top.total - http - script - metrics - gc) };
}
