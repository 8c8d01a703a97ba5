// Runs the k6 binary. k6's own log lines quote the request URL (so the API key) in network errors and
// repeat once per failed request: every line is redacted and repeats are folded into counts.
import { spawn } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { redact } from '../../core/redact.ts';

export interface K6Result {
  exitCode: number;
  wallSec: number;
  /** CPU seconds k6 used (Linux /proc), to tell a saturated generator from a slow target. */
  cpuSec?: number;
  /** Distinct log lines, redacted, each with how often it occurred. */
  log: Array<{ line: string; count: number }>;
  /** When k6 started the test (epoch ms): its first requests, after every VU's init code ran. Absent when never seen running. */
  testStartMs?: number;
  /** The first line that matched K6Run.alarm (seen past the cap on distinct lines). */
  alarm?: string;
}

export const CLOCK_TICKS_PER_SEC = 100;
const MAX_DISTINCT_LINES = 40;

export interface K6Run {
  binary: string;
  script: string;
  args?: string[];
  env: Record<string, string>;
  onLine?: (line: string) => void;
  /** A line the caller must hear of however many distinct lines came before it (K6Result.alarm). */
  alarm?: RegExp;
  /** k6's REST API (http://127.0.0.1:<port>), once it listens: live figures for the progress display. */
  onApi?: (url: string) => void;
  /** When the test starts (epoch ms, see K6Result.testStartMs), as soon as it is seen. */
  onTestStart?: (epochMs: number) => void;
  signal?: AbortSignal;
}

export async function runK6(opts: K6Run): Promise<K6Result> {
  const started = performance.now();
  const child = spawn(opts.binary, ['run', '--no-usage-report', '--quiet', '--no-color', '--address', '127.0.0.1:0', ...(opts.args ?? []), opts.script], {
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own session: Ctrl-C in a terminal and `timeout` signal the whole process group, and k6, hit
    // directly (twice, with npm's forwarding), aborts without its summary. This process stops it instead.
    detached: true,
  });
  const seen = new Map<string, { line: string; count: number }>();
  let alarm: string | undefined;
  const onData = (chunk: string): void => {
    for (const raw of chunk.split('\n')) {
      const line = redact(raw.replace(/^time="[^"]*"\s*/, '').trim());
      if (!line) continue;
      if (opts.alarm?.test(line)) alarm ??= line;
      const entry = seen.get(line);
      if (entry) entry.count++;
      else if (seen.size < MAX_DISTINCT_LINES) {
        seen.set(line, { line, count: 1 });
        opts.onLine?.(line);
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);

  let cpuSec: number | undefined;
  const sampler = setInterval(() => void cpuSeconds(child.pid).then((s) => (cpuSec = s ?? cpuSec)), 1000);
  // k6 takes a free port for its API (--address 127.0.0.1:0) and does not print it: read it from /proc.
  // The API listens before k6 runs the VUs' init code (seconds with a big corpus): the test starts later.
  let lookups = 0;
  let found = false;
  let testStartMs: number | undefined;
  const watching = new AbortController();
  const apiFinder = setInterval(() => {
    if (++lookups > 60) return clearInterval(apiFinder);
    void listeningPort(child.pid).then((port) => {
      if (port === undefined || found) return;
      found = true;
      clearInterval(apiFinder);
      const api = `http://127.0.0.1:${port}`;
      opts.onApi?.(api);
      void watchTestStart(api, watching.signal).then((ms) => {
        if (ms === undefined) return;
        testStartMs = ms;
        opts.onTestStart?.(ms);
      });
    });
  }, 250);
  // One SIGINT makes k6 stop the test and still write its summary (a second would abort it): sent once,
  // on the run's abort signal, or on a signal to this process when the caller passed none. k6 never
  // outlives this process.
  let stopping = false;
  const stopK6 = (): void => {
    if (stopping) return;
    stopping = true;
    child.kill('SIGINT');
  };
  const killK6 = (): void => void child.kill('SIGKILL');
  const ownSignal = !opts.signal;
  if (ownSignal) {
    process.on('SIGINT', stopK6);
    process.on('SIGTERM', stopK6);
  }
  opts.signal?.addEventListener('abort', stopK6, { once: true });
  if (opts.signal?.aborted) stopK6();
  process.once('exit', killK6);
  try {
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
    return { exitCode, wallSec: (performance.now() - started) / 1000, ...(cpuSec === undefined ? {} : { cpuSec }), log: [...seen.values()], ...(testStartMs === undefined ? {} : { testStartMs }), ...(alarm === undefined ? {} : { alarm }) };
  } finally {
    clearInterval(sampler);
    clearInterval(apiFinder);
    watching.abort();
    if (ownSignal) {
      process.off('SIGINT', stopK6);
      process.off('SIGTERM', stopK6);
    }
    process.off('exit', killK6);
    opts.signal?.removeEventListener('abort', stopK6);
  }
}

/** How often the test start is polled for: the timeline's points are rounded to a tenth of a second. */
const START_POLL_MS = 50;
/** k6's ExecutionStatusRunning (lib/execution.go): setup() is done, the scenarios' executors run. Later ones: teardown, ended, aborted. */
const K6_RUNNING = 7;

/**
 * When k6's executors started (epoch ms, within half a poll): the first iteration, so the first request, starts then.
 * Polls GET /v1/status until it reports running; undefined when the test is first seen past that (or never).
 */
export async function watchTestStart(api: string, signal: AbortSignal): Promise<number | undefined> {
  const get = <T>(path: string): Promise<T | undefined> =>
    fetch(`${api}${path}`, { signal: AbortSignal.any([signal, AbortSignal.timeout(2000)]) })
      .then((r) => (r.ok ? (r.json() as Promise<T>) : undefined))
      .catch(() => undefined);
  let before: number | undefined;
  while (!signal.aborted) {
    const status = (await get<{ data?: { attributes?: { status?: number } } }>('/v1/status'))?.data?.attributes?.status;
    const now = Date.now();
    if (status === K6_RUNNING) {
      if (before !== undefined) return Math.round((before + now) / 2);
      // Already running at the first look: a counter's rate is its count over the time since the start.
      const sample = (await get<{ data?: { attributes?: { sample?: { count?: number; rate?: number } } } }>('/v1/metrics/iterations'))?.data?.attributes?.sample;
      return sample?.count && sample.rate ? Math.round(now - (sample.count / sample.rate) * 1000) : now;
    }
    if (status !== undefined && status > K6_RUNNING) return undefined;
    if (status !== undefined) before = now;
    await new Promise((r) => setTimeout(r, START_POLL_MS));
  }
  return undefined;
}

/** CPU seconds (user + system) a running process has used so far; undefined off Linux or once it is gone. */
export async function cpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  const fields = stat === undefined ? [] : procStatFields(stat);
  const ticks = Number(fields[STAT.utime]) + Number(fields[STAT.stime]);
  return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SEC : undefined;
}

/** The loopback TCP port a process listens on (its sockets' inodes in /proc/net/tcp); undefined off Linux or before it listens. */
export async function listeningPort(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes = new Set(links.map((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1]).filter((i): i is string => i !== undefined));
  const table = await readFile(`/proc/${pid}/net/tcp`, 'utf8').catch(() => '');
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address is 0100007F:<port hex> for 127.0.0.1; state 0A is LISTEN; field 9 is the inode.
    if (f[1]?.startsWith('0100007F:') && f[3] === '0A' && inodes.has(f[9] ?? '')) return parseInt(f[1].slice(9), 16);
  }
  return undefined;
}

/** Indexes into procStatFields() (proc(5) fields 4, 14, 15, 16 and 17). */
export const STAT = { ppid: 1, utime: 11, stime: 12, cutime: 13, cstime: 14 } as const;

/** The fields of a /proc/<pid>/stat line after "pid (comm) " (comm may hold spaces and parentheses). */
export function procStatFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
