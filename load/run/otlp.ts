// k6's metrics as its OpenTelemetry output exports them (OTLP/HTTP, protobuf), or as k6/x/rpccertify's own output does
// (k6ext/totals.go: the same cumulative totals, as JSON, at a fraction of the CPU): the run's only metric channel. k6 runs
// with no thresholds, no end-of-test summary and no web dashboard, each of which keeps every sample of its built-in
// Trends (64+ B a request, for the whole run); the OpenTelemetry SDK aggregates in bounded memory (counters are sums,
// Trends explicit-bucket histograms with their min and max) and exports cumulative totals every period and once more
// as k6 stops. This file decodes what it needs of the protobuf (opentelemetry-proto's metrics/v1 and
// collector/metrics/v1) and keeps the latest totals, read by k6's own metric names (summary.ts's MetricReader).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricReader } from '../shared/summary.ts';

/** One exported series: a metric and one set of attributes (k6's tags), its cumulative figures. */
export interface Series {
  metric: string;
  attributes: Record<string, string>;
  /** A sum's total, a gauge's last value, a histogram's count. */
  value: number;
  /** A histogram's smallest and largest values (k6 Trends). */
  min?: number;
  max?: number;
  /** When it was collected (epoch ms). */
  timeMs: number;
  /** When its totals started (epoch ms): k6's output starting, before the VUs' init code. */
  startMs: number;
}

/** The OpenTelemetry SDK's attribute on the series past its cardinality limit (2,000 a metric): those counts have no tags. */
export const OVERFLOW_ATTRIBUTE = 'otel.metric.overflow';

type Fields = (field: number, wire: number, r: ProtoReader) => void;

/** Protobuf wire format, only as far as OTLP metrics need it. */
class ProtoReader {
  private readonly view: DataView;
  constructor(
    readonly buf: Uint8Array,
    public pos = 0,
    readonly end = buf.length,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  varint(): number {
    let result = 0;
    let shift = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('OTLP: truncated varint');
      const byte = this.buf[this.pos++] ?? 0;
      result += (byte & 0x7f) * shift;
      if (byte < 0x80) return result;
      shift *= 128;
    }
  }

  double(): number {
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  fixed64(): number {
    const v = Number(this.view.getBigUint64(this.pos, true));
    this.pos += 8;
    return v;
  }

  /** A length-delimited field: a reader over its bytes (the caller's position moves past them). */
  sub(): ProtoReader {
    const length = this.varint();
    const start = this.pos;
    this.pos += length;
    if (this.pos > this.end) throw new Error('OTLP: truncated field');
    return new ProtoReader(this.buf, start, this.pos);
  }

  string(): string {
    const r = this.sub();
    return new TextDecoder().decode(this.buf.subarray(r.pos, r.end));
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.sub();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`OTLP: wire type ${wire} not supported`);
  }

  /** Calls `each` for every field; it reads the ones it knows (anything else is skipped). */
  fields(each: Fields): void {
    while (this.pos < this.end) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      const before = this.pos;
      each(field, wire, this);
      if (this.pos === before) this.skip(wire);
    }
  }
}

/** Decodes an ExportMetricsServiceRequest into its series (sums, gauges and histograms; other kinds are left out). */
export function decodeMetrics(body: Uint8Array): Series[] {
  const out: Series[] = [];
  new ProtoReader(body).fields((f, w, r) => {
    if (f !== 1 || w !== 2) return; // resource_metrics
    r.sub().fields((f2, w2, rm) => {
      if (f2 !== 2 || w2 !== 2) return; // scope_metrics
      rm.sub().fields((f3, w3, sm) => {
        if (f3 === 2 && w3 === 2) metric(sm.sub(), out); // metrics
      });
    });
  });
  return out;
}

function metric(r: ProtoReader, out: Series[]): void {
  let name = '';
  const points: Series[] = [];
  r.fields((f, w, m) => {
    if (w !== 2) return;
    if (f === 1) name = m.string();
    // gauge = 5, sum = 7 (number data points), histogram = 9
    else if (f === 5 || f === 7 || f === 9) {
      const histogram = f === 9;
      m.sub().fields((f2, w2, d) => {
        if (f2 === 1 && w2 === 2) points.push(dataPoint(d.sub(), histogram));
      });
    }
  });
  for (const p of points) out.push({ ...p, metric: name });
}

/** A NumberDataPoint (attributes 7, value as_double 4 or as_int 6) or a HistogramDataPoint (attributes 9, count 4, min 11,
 * max 12); both have start_time_unix_nano 2 and time_unix_nano 3. */
function dataPoint(r: ProtoReader, histogram: boolean): Series {
  const p: Series = { metric: '', attributes: {}, value: 0, timeMs: 0, startMs: 0 };
  r.fields((f, w, d) => {
    if (w === 2 && f === (histogram ? 9 : 7)) attribute(d.sub(), p.attributes);
    else if (w !== 1) return;
    else if (f === 2) p.startMs = d.fixed64() / 1e6;
    else if (f === 3) p.timeMs = d.fixed64() / 1e6;
    else if (f === 4) p.value = histogram ? d.fixed64() : d.double();
    else if (f === 6 && !histogram) p.value = d.fixed64(); // as_int: k6's counters are doubles; an int is never negative here
    else if (f === 11 && histogram) p.min = d.double();
    else if (f === 12 && histogram) p.max = d.double();
  });
  return p;
}

/** A KeyValue; k6's tags are strings, a bool or number is kept as its text. */
function attribute(r: ProtoReader, into: Record<string, string>): void {
  let key = '';
  let value = '';
  r.fields((f, w, kv) => {
    if (f === 1 && w === 2) key = kv.string();
    else if (f === 2 && w === 2) {
      kv.sub().fields((f2, w2, v) => {
        if (f2 === 1 && w2 === 2) value = v.string();
        else if (f2 === 2 && w2 === 0) value = String(v.varint() !== 0);
        else if (f2 === 3 && w2 === 0) value = String(v.varint());
        else if (f2 === 4 && w2 === 1) value = String(v.double());
      });
    }
  });
  into[key] = value;
}

/** The latest cumulative totals of every series, read by k6's names: `metric` or its sub-metric `metric{tag:value}`. */
export class MetricTotals {
  private readonly byMetric = new Map<string, Map<string, Series>>();
  /** When the latest export was collected (epoch ms). */
  lastTimeMs: number | undefined;
  /** When the totals started (epoch ms): the output's start. */
  startMs: number | undefined;

  /** Takes one export (cumulative: each series replaces its previous figures). Series of one export with the same
   * attributes are one series' parts, summed: k6/x/rpccertify keys its series by k6's tag set, and two tag sets can give
   * the same attributes (an empty tag value is dropped), where the OpenTelemetry SDK would have merged them. */
  update(series: readonly Series[]): void {
    const fresh = new Set<Series>();
    for (const s of series) {
      if (OVERFLOW_ATTRIBUTE in s.attributes) throw new Error(`k6's OpenTelemetry output dropped the tags of some ${s.metric} samples (over its cardinality limit): their counts cannot be told apart`);
      let metric = this.byMetric.get(s.metric);
      if (!metric) this.byMetric.set(s.metric, (metric = new Map()));
      const key = JSON.stringify(Object.entries(s.attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
      const part = metric.get(key);
      metric.set(key, part && fresh.has(part) ? partsOf(part, s) : s);
      fresh.add(metric.get(key) ?? s);
      this.lastTimeMs = Math.max(this.lastTimeMs ?? s.timeMs, s.timeMs);
      this.startMs = Math.min(this.startMs ?? s.startMs, s.startMs);
    }
  }

  /** `count`: a sum's total or a histogram's count, over the matching series; `min`, `max`: a Trend's (a gauge's value). */
  readonly read: MetricReader = (name, stat) => {
    const { metric, tags } = parseName(name);
    let total = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const s of this.byMetric.get(metric)?.values() ?? []) {
      if (!tags.every(([k, v]) => s.attributes[k] === v)) continue;
      total += s.value;
      min = Math.min(min, s.min ?? s.value);
      max = Math.max(max, s.max ?? s.value);
    }
    if (stat === 'count') return total;
    if (stat === 'min') return Number.isFinite(min) ? min : 0;
    if (stat === 'max') return Number.isFinite(max) ? max : 0;
    return 0;
  };

  /** The values one tag takes in a metric's series (the error codes of a class counter). */
  tagValues(metric: string, tag: string): string[] {
    return [...new Set([...(this.byMetric.get(metric)?.values() ?? [])].flatMap((s) => (s.attributes[tag] === undefined ? [] : [s.attributes[tag]])))];
  }
}

/** Two parts of one series in one export: their values summed (as read sums the series it matches), the extremes of both. */
function partsOf(a: Series, b: Series): Series {
  const min = a.min === undefined ? b.min : b.min === undefined ? a.min : Math.min(a.min, b.min);
  const max = a.max === undefined ? b.max : b.max === undefined ? a.max : Math.max(a.max, b.max);
  return { ...b, value: a.value + b.value, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

/** `name{k:v,k2:v2}` -> the metric and the tags it selects (k6's sub-metric syntax). */
function parseName(name: string): { metric: string; tags: Array<[string, string]> } {
  const brace = name.indexOf('{');
  if (brace < 0 || !name.endsWith('}')) return { metric: name, tags: [] };
  const tags = name
    .slice(brace + 1, -1)
    .split(',')
    .map((pair): [string, string] => {
      const colon = pair.indexOf(':');
      return [pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()];
    });
  return { metric: name.slice(0, brace), tags };
}

export interface OtlpReceiver {
  /** host:port, for K6_OTEL_HTTP_EXPORTER_ENDPOINT. */
  endpoint: string;
  totals: MetricTotals;
  /** Why an export was refused (undecodable, or over the cardinality limit), if one was. */
  error?: string;
  close: () => Promise<void>;
}

/** A loopback OTLP/HTTP receiver for one k6 instance; `onExport` runs after each export is taken in. */
export async function startOtlpReceiver(onExport?: (totals: MetricTotals) => void): Promise<OtlpReceiver> {
  const totals = new MetricTotals();
  const receiver: OtlpReceiver = { endpoint: '', totals, close: () => closeServer(server) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        if (req.method !== 'POST' || (req.url !== OTLP_PATH && req.url !== TOTALS_PATH)) throw new Error(`OTLP: unexpected ${req.method ?? ''} ${req.url ?? ''}`);
        if (req.headers['content-encoding'] && req.headers['content-encoding'] !== 'identity') throw new Error(`OTLP: ${req.headers['content-encoding']} bodies are not read`);
        const body = Buffer.concat(chunks);
        totals.update(req.url === TOTALS_PATH ? decodeTotals(body) : decodeMetrics(body));
        onExport?.(totals);
        // An empty ExportMetricsServiceResponse: everything taken.
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      } catch (e) {
        receiver.error ??= (e as Error).message;
        // 400 is not retried by the exporter: the export is lost, and the run says so (instances.ts).
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  receiver.endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

export const OTLP_PATH = '/v1/metrics';
/** Where k6/x/rpccertify's output (`--out rpccertify=<url>`, k6ext/totals.go) POSTs its totals. */
export const TOTALS_PATH = '/rpc-certify/totals';

/** k6ext/totals.go's export: every series' cumulative figures as Series has them, with the export's times. */
export function decodeTotals(body: Buffer): Series[] {
  const sent = JSON.parse(body.toString('utf8')) as { startMs?: unknown; timeMs?: unknown; series?: unknown };
  const { startMs, timeMs, series } = sent;
  if (typeof startMs !== 'number' || typeof timeMs !== 'number' || !Array.isArray(series)) throw new Error('totals: not an export of k6/x/rpccertify');
  return series.map((s: Partial<Series>): Series => {
    if (typeof s.metric !== 'string' || typeof s.value !== 'number' || typeof s.attributes !== 'object' || s.attributes === null) throw new Error(`totals: a series without its metric, value or attributes (${JSON.stringify(s).slice(0, 200)})`);
    return { metric: s.metric, attributes: s.attributes, value: s.value, ...(typeof s.min === 'number' ? { min: s.min } : {}), ...(typeof s.max === 'number' ? { max: s.max } : {}), timeMs, startMs };
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
