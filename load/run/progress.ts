// Live progress of a k6 run: per method the achieved rate, p95 and errors, with elapsed time and ETA.
// Figures come from each k6 instance's latest OpenTelemetry export (otlp.ts, once a second), read in this
// process: polling costs k6 nothing.
// On a terminal the block is redrawn every few seconds; elsewhere one line every 30 s, so CI logs stay short.
import { bucketQuantile, GROUP_BUCKETS, HISTOGRAM_GROUPS } from '../shared/histogram.ts';
import { JUDGED_CLASSES, metricName, SUCCESS_CLASSES, type Subject } from '../shared/answer-classes.ts';
import { bucketMetric, type MetricReader } from '../shared/summary.ts';

export interface ProgressOptions {
  /** What is running: "load gate", "capacity eth_getBlockByHash step 3 (150 rps)". */
  title: string;
  subjects: ReadonlyArray<{ name: Subject; rps: number }>;
  /** How long the plan runs (seconds). */
  totalSec: number;
  /** Where it is drawn (stderr); a TTY gets the redrawn block. */
  out: NodeJS.WriteStream | { isTTY?: boolean; write: (text: string) => boolean };
  /** Seconds between redraws on a terminal, and between lines elsewhere. */
  ttyEverySec?: number;
  lineEverySec?: number;
}

interface Figures {
  requests: number;
  errors: number;
  p95?: number;
}

interface SubjectView extends Figures {
  /** Requests per second over the last poll interval. */
  rps?: number;
}

export class LiveProgress {
  private readonly sources: Array<{ read: MetricReader }> = [];
  /** When the test started (epoch ms): k6's first requests, not its API listening (seconds earlier, before the VUs' init code ran). */
  private started: number | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly tty: boolean;
  private previous?: { at: number; requests: Map<Subject, number> };
  private drawn = 0;
  private lastLine = Date.now();
  private view = new Map<Subject, SubjectView>();

  constructor(private readonly opts: ProgressOptions) {
    this.tty = Boolean(opts.out.isTTY);
    const every = this.tty ? (opts.ttyEverySec ?? 3) : Math.min(10, opts.lineEverySec ?? 30);
    this.timer = setInterval(() => this.tick(), every * 1000);
    this.timer.unref();
  }

  /** A k6 instance's latest totals (otlp.ts's MetricTotals) to read figures from. */
  addInstance(source: { read: MetricReader }): void {
    this.sources.push(source);
  }

  /** An instance started the test (epoch ms, load/run/k6.ts): the elapsed time counts from the first instance's start. */
  testStarted(epochMs: number): void {
    this.started = Math.min(this.started ?? epochMs, epochMs);
  }

  /** Prints a log line above the live block (so the block never overwrites it). */
  print(line: string): void {
    this.clear();
    this.opts.out.write(`${line}\n`);
    if (this.tty && this.view.size) this.draw();
  }

  stop(): void {
    clearInterval(this.timer);
    this.clear();
  }

  private tick(): void {
    if (this.sources.length === 0) return;
    const now = Date.now();
    const figures = this.opts.subjects.map((s) => [s.name, combine(this.sources.map((source) => readFigures(source.read, s.name)))] as const);
    const requests = new Map(figures.map(([name, f]) => [name, f.requests]));
    const seconds = this.previous ? (now - this.previous.at) / 1000 : this.started === undefined ? 0 : (now - this.started) / 1000;
    this.view = new Map(figures.map(([name, f]) => [name, { ...f, ...(seconds > 0 ? { rps: (f.requests - (this.previous?.requests.get(name) ?? 0)) / seconds } : {}) }]));
    // Before the start, nothing is sent: the first rate is taken over the time since the start.
    this.previous = this.started === undefined ? undefined : { at: now, requests };
    if (this.tty) {
      this.clear();
      this.draw();
    } else if (now - this.lastLine >= (this.opts.lineEverySec ?? 30) * 1000 - 500) {
      this.lastLine = now;
      this.opts.out.write(`${this.oneLine()}\n`);
    }
  }

  private clock(): string {
    if (this.started === undefined) return `starting (k6 runs the init code of its VUs), ${Math.round(this.opts.totalSec)} s to run`;
    const elapsed = Math.round((Date.now() - this.started) / 1000);
    const left = Math.max(0, Math.round(this.opts.totalSec - elapsed));
    return `${elapsed} s of ${Math.round(this.opts.totalSec)} s, ETA ${left} s`;
  }

  /** The terminal block: a title line, then one line per method. */
  private lines(): string[] {
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    const rows = this.opts.subjects.map(({ name, rps: target }) => {
      const v = this.view.get(name);
      const rate = v?.rps === undefined ? '-' : v.rps.toFixed(1);
      return `  ${name.padEnd(40)}${pad(`${rate}/${target}`, 13)}${pad(v?.p95 === undefined ? '-' : v.p95.toFixed(1), 11)}${pad(v?.errors ?? 0, 9)}${pad(v?.requests ?? 0, 10)}`;
    });
    return [`${this.opts.title}: ${this.clock()}`, `  ${'method'.padEnd(40)}${pad('rps/target', 13)}${pad('p95 ms', 11)}${pad('errors', 9)}${pad('requests', 10)}`, ...rows];
  }

  /** One line for a log: the total rate, the worst p95 and where the errors are. */
  private oneLine(): string {
    const views = [...this.view.entries()];
    const rate = views.reduce((a, [, v]) => a + (v.rps ?? 0), 0);
    const target = this.opts.subjects.reduce((a, s) => a + s.rps, 0);
    const worst = views.filter(([, v]) => v.p95 !== undefined).sort(([, a], [, b]) => (b.p95 ?? 0) - (a.p95 ?? 0))[0];
    const erring = views.filter(([, v]) => v.errors > 0);
    const errors = erring.reduce((a, [, v]) => a + v.errors, 0);
    return `${this.opts.title}: ${this.clock()}: ${rate.toFixed(1)} rps (target ${target}), p95 up to ${worst ? `${worst[1].p95?.toFixed(1)} ms (${worst[0]})` : '-'}, ${errors} errors${erring.length ? ` (${erring.map(([n, v]) => `${n} ${v.errors}`).join(', ')})` : ''}`;
  }

  private draw(): void {
    const lines = this.lines();
    this.opts.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  /** Moves back over the block drawn last and erases it. */
  private clear(): void {
    if (!this.tty || this.drawn === 0) return;
    this.opts.out.write(`\x1b[${this.drawn}F\x1b[0J`);
    this.drawn = 0;
  }
}

/** Instances of one test add up: requests and errors sum, p95 is the highest instance's (percentiles do not merge). */
function combine(parts: Figures[]): Figures {
  const p95s = parts.map((p) => p.p95).filter((p): p is number => p !== undefined);
  return { requests: parts.reduce((a, p) => a + p.requests, 0), errors: parts.reduce((a, p) => a + p.errors, 0), ...(p95s.length ? { p95: Math.max(...p95s) } : {}) };
}

/** One subject's figures from one instance: its failure class counters, its histogram's successes and p95 (summary.ts). */
function readFigures(read: MetricReader, subject: Subject): Figures {
  const count = (metric: string) => read(metric, 'count');
  // Successes are the histogram's (every success records its bucket): only the failure classes are read as counters.
  const errors = JUDGED_CLASSES.filter((c) => !SUCCESS_CLASSES.includes(c)).reduce((a, c) => a + count(metricName.calls(subject, c)), 0);
  const buckets: Record<string, number> = {};
  let successes = 0;
  for (let g = 0; g < HISTOGRAM_GROUPS; g++) {
    if (count(metricName.histogram(subject, g)) === 0) continue;
    for (let b = g * GROUP_BUCKETS; b < (g + 1) * GROUP_BUCKETS; b++) {
      const n = count(bucketMetric(subject, b));
      if (n > 0) (buckets[b] = n), (successes += n);
    }
  }
  return { requests: successes + errors, errors, ...(successes > 0 ? { p95: bucketQuantile(buckets, successes, 0.95) } : {}) };
}
