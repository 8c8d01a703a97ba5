// k6's OpenTelemetry export as the harness reads it (load/run/otlp.ts): the protobuf decoded field by field (what is
// not needed skipped), the totals read by k6's metric and sub-metric names, and an export it cannot keep apart refused;
// and k6/x/rpccertify's output (k6ext/totals.go), the same totals as JSON, read the same way.
// Real k6 exports are read end to end by test/load/load-retention.test.ts and every load test that runs k6.
import { expect } from 'chai';
import { decodeMetrics, MetricTotals, OTLP_PATH, OVERFLOW_ATTRIBUTE, startOtlpReceiver, TOTALS_PATH } from '../../load/run/otlp.ts';

// A minimal protobuf writer: enough to build an ExportMetricsServiceRequest.
const varint = (n: number): number[] => {
  const out: number[] = [];
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (v < 128) return [...out, v];
    out.push((v % 128) | 128);
  }
};
const key = (field: number, wire: number) => varint(field * 8 + wire);
const bytes = (field: number, body: number[]) => [...key(field, 2), ...varint(body.length), ...body];
const text = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);
const double = (field: number, v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return [...key(field, 1), ...b];
};
const fixed64 = (field: number, v: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return [...key(field, 1), ...b];
};
const kv = (k: string, value: number[]) => [...text(1, k), ...bytes(2, value)];
const str = (k: string, v: string) => kv(k, text(1, v));
/** time_unix_nano of 2.5 s after the epoch, start 1 s. */
const TIMES = [...fixed64(2, 1e9), ...fixed64(3, 2.5e9)];

function request(metrics: number[][]): Uint8Array {
  // resource_metrics { resource (skipped), scope_metrics { scope (skipped), metrics... } }
  const scope = [...bytes(1, text(1, 'k6')), ...metrics.flatMap((m) => bytes(2, m))];
  return Uint8Array.from(bytes(1, [...bytes(1, bytes(1, str('service.name', 'k6'))), ...bytes(2, scope), ...text(3, 'schema')]));
}
const sum = (name: string, points: number[][]) => [...text(1, name), ...text(3, 'ms'), ...bytes(7, [...points.flatMap((p) => bytes(1, p)), ...key(2, 0), 2, ...key(3, 0), 1])];
const numberPoint = (v: number, attrs: number[][]) => [...attrs.flatMap((a) => bytes(7, a)), ...TIMES, ...double(4, v)];
/** bucket_counts, packed: one fixed64 (a field the reader skips). */
const packedOne = [1, 0, 0, 0, 0, 0, 0, 0];
const histogram = (name: string, count: number, min: number, max: number, attrs: number[][]) => [
  ...text(1, name),
  ...bytes(9, bytes(1, [...attrs.flatMap((a) => bytes(9, a)), ...TIMES, ...fixed64(4, count), ...double(5, 99), ...bytes(6, packedOne), ...double(11, min), ...double(12, max)])),
];

describe("load: k6's OpenTelemetry export (otlp.ts)", () => {
  const body = request([
    sum('hist_eth_call_3', [numberPoint(7, [str('b', '40'), str('scenario', 'eth_call')]), numberPoint(5, [str('b', '41'), str('scenario', 'eth_call')])]),
    sum('calls_rpc_error_eth_call', [numberPoint(2, [str('code', '-32000'), kv('expected_response', [...key(2, 0), 1]), kv('n', [...key(3, 0), 42]), kv('x', double(4, 1.5))])]),
    histogram('latency_bounds_eth_call', 4, 1.25, 980.5, [str('scenario', 'eth_call')]),
  ]);

  it('decodes sums and histograms (count, min, max), every kind of attribute, and skips what it does not read', () => {
    const series = decodeMetrics(body);
    expect(series.map((s) => [s.metric, s.value, s.attributes])).to.deep.equal([
      ['hist_eth_call_3', 7, { b: '40', scenario: 'eth_call' }],
      ['hist_eth_call_3', 5, { b: '41', scenario: 'eth_call' }],
      ['calls_rpc_error_eth_call', 2, { code: '-32000', expected_response: 'true', n: '42', x: '1.5' }],
      ['latency_bounds_eth_call', 4, { scenario: 'eth_call' }],
    ]);
    expect(series[3]).to.include({ min: 1.25, max: 980.5, timeMs: 2500, startMs: 1000 });
  });

  it("reads the totals by k6's names: a metric, its sub-metric by tag, a Trend's min and max; an export replaces the last", () => {
    const totals = new MetricTotals();
    totals.update(decodeMetrics(body));
    expect(totals.read('hist_eth_call_3', 'count')).to.equal(12);
    expect(totals.read('hist_eth_call_3{b:41}', 'count')).to.equal(5);
    expect(totals.read('hist_eth_call_3{b:42}', 'count')).to.equal(0);
    expect(totals.read('calls_rpc_error_eth_call{code:-32000}', 'count')).to.equal(2);
    expect(totals.read('latency_bounds_eth_call', 'min')).to.equal(1.25);
    expect(totals.read('latency_bounds_eth_call', 'max')).to.equal(980.5);
    expect(totals.read('never_recorded', 'max')).to.equal(0);
    expect(totals.tagValues('calls_rpc_error_eth_call', 'code')).to.deep.equal(['-32000']);
    // Cumulative: the next export's figures replace these, series by series.
    totals.update([{ metric: 'hist_eth_call_3', attributes: { scenario: 'eth_call', b: '40' }, value: 9, timeMs: 3500, startMs: 1000 }]);
    expect(totals.read('hist_eth_call_3', 'count')).to.equal(14);
    expect(totals.lastTimeMs).to.equal(3500);
  });

  it('refuses counts whose tags the SDK dropped (over its cardinality limit), rather than miscount them', () => {
    const totals = new MetricTotals();
    expect(() => totals.update([{ metric: 'hist_eth_call_3', attributes: { [OVERFLOW_ATTRIBUTE]: 'true' }, value: 3, timeMs: 1, startMs: 0 }])).to.throw(/cardinality limit/);
  });

  it('takes exports over loopback HTTP, and answers an undecodable one with 400 and says why', async () => {
    const seen: number[] = [];
    const receiver = await startOtlpReceiver((t) => seen.push(t.read('hist_eth_call_3', 'count')));
    try {
      const post = (payload: Uint8Array) => fetch(`http://${receiver.endpoint}${OTLP_PATH}`, { method: 'POST', body: Buffer.from(payload), headers: { 'Content-Type': 'application/x-protobuf' } });
      expect((await post(body)).status).to.equal(200);
      expect(seen).to.deep.equal([12]);
      expect((await post(Uint8Array.from([0x0a, 0x10, 0x01]))).status).to.equal(400);
      expect(receiver.error).to.match(/truncated/);
    } finally {
      await receiver.close();
    }
  });

  it("takes k6/x/rpccertify's totals (JSON) at their own path, read as an OpenTelemetry export is; refuses one without its figures", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const post = (payload: unknown) => fetch(`http://${receiver.endpoint}${TOTALS_PATH}`, { method: 'POST', body: JSON.stringify(payload), headers: { 'Content-Type': 'application/json' } });
      const series = [
        { metric: 'hist_eth_call_0', attributes: { b: '3', scenario: 'eth_call' }, value: 12 },
        { metric: 'hist_eth_call_0', attributes: { b: '4', scenario: 'eth_call' }, value: 2 },
        { metric: 'latency_bounds_eth_call', attributes: { scenario: 'eth_call' }, value: 5, min: 0.5, max: 9.25 },
      ];
      expect((await post({ startMs: 1000, timeMs: 2500, series })).status).to.equal(200);
      const { totals } = receiver;
      expect(totals.read('hist_eth_call_0{b:3}', 'count')).to.equal(12);
      expect(totals.read('hist_eth_call_0', 'count')).to.equal(14);
      expect([totals.read('latency_bounds_eth_call', 'min'), totals.read('latency_bounds_eth_call', 'max')]).to.deep.equal([0.5, 9.25]);
      expect([totals.startMs, totals.lastTimeMs]).to.deep.equal([1000, 2500]);
      // Cumulative: the next export replaces each series' figures.
      expect((await post({ startMs: 1000, timeMs: 3500, series: [{ ...series[0], value: 20 }] })).status).to.equal(200);
      expect(totals.read('hist_eth_call_0', 'count')).to.equal(22);
      expect(receiver.error).to.equal(undefined);
      expect((await post({ startMs: 1000, timeMs: 4500, series: [{ metric: 'hist_eth_call_0', attributes: {} }] })).status).to.equal(400);
      expect(receiver.error).to.match(/^totals: a series without its metric, value or attributes/);
    } finally {
      await receiver.close();
    }
  });

  it('sums the series of one export that have the same attributes (two k6 tag sets, one with an empty tag), as the SDK merges them', () => {
    // Real k6: `c.add(1, i % 2 ? { x: '' } : {})` 51 times; k6/x/rpccertify's output sends two series with attributes
    // { scenario }, k6's OpenTelemetry output one. Kept apart, the later one replaced the other: 25 of 51 read.
    const totals = new MetricTotals();
    const at = { timeMs: 2000, startMs: 1000 };
    const parts = [
      { metric: 'c', attributes: { scenario: 'a' }, value: 26, ...at },
      { metric: 'c', attributes: { scenario: 'a' }, value: 25, ...at },
      { metric: 't', attributes: { scenario: 'a' }, value: 3, min: 2, max: 4, ...at },
      { metric: 't', attributes: { scenario: 'a' }, value: 1, min: 1, max: 3, ...at },
    ];
    totals.update(parts);
    expect(totals.read('c', 'count')).to.equal(51);
    expect([totals.read('t', 'count'), totals.read('t', 'min'), totals.read('t', 'max')]).to.deep.equal([4, 1, 4]);
    // The next export (cumulative) replaces the sum; it does not add to it.
    totals.update(parts.map((p) => ({ ...p, timeMs: 3000 })));
    expect(totals.read('c', 'count')).to.equal(51);
  });
});
