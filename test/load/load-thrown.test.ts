// An iteration whose script throws leaves its answer in no count (k6 only logs the exception), so whatever the
// answer was, no check saw it: one such iteration among a hundred read as a pass before it was counted. Real k6
// runs through the CLI, with a fault put into the bundle itself (no endpoint can provoke one on purpose), on both
// paths: one throw makes the run INCONCLUSIVE (exit 3), named with its error; the same run unpatched passes.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Devnet } from '../../devnet/index.ts';
import { runLoad } from '../../load/run/run.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { withoutExtension, withScriptPatched } from '../support/plain-k6.ts';
import { requireTool } from '../support/tools.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';

const METHOD = 'eth_getBlockByHash';
/** The one iteration the patched script throws in (k6's iteration number in the scenario). */
const THROWN = 7;
const fault = `if (exec.scenario.iterationInTest === ${THROWN}) throw new Error("injected fault");`;
/** Where each path's fault goes: with the extension, before Go sends anything; without it, after k6 answered. */
const PATCHES = {
  go: { from: 'try {\n    const sentInGo = go ? go.call() : null;', to: `try {\n    ${fault}\n    const sentInGo = go ? go.call() : null;` },
  js: { from: 'function judge(sentInGo) {\n', to: `function judge(sentInGo) {\n  ${fault}\n`, extension: false },
};

describe('load: an iteration whose script threw is counted, and no run with one passes (real k6)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let dir: string;
  faultyDevnet((d, p) => ((devnet = d), (proxy = p)));
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rc-load-thrown-'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const runIn = async (name: string) => {
    const out = join(dir, name);
    // 100 iterations: one missing from the counts is within what the figures may lose (report.ts's uncounted).
    const run = await runLoad({ url: proxy.url, profile: 'smoke', rate: 50, duration: '2s', methods: [METHOD], out, log: () => undefined });
    return { run, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport };
  };

  it('unpatched, the same run passes, with no script error', async function () {
    await requireTool(this, 'k6');
    void devnet;
    const { run, report } = await runIn('clean');
    expect(run.exitCode, run.summary).to.equal(0);
    expect(report.generator.scriptErrors).to.equal(undefined);
  });

  it('an endpoint answering 101 Switching Protocols (k6 throws: "unsupported response status"): http_error, the endpoint\'s failure, no script error, on both paths', async function () {
    const k6 = await requireTool(this, 'k6');
    // Sampled first, clean: the 101s start under load.
    const sampled = await runIn('sampled');
    expect(sampled.run.exitCode, sampled.run.summary).to.equal(0);
    proxy.fault = { name: '101', kills: [], raw: (req) => (req.method === METHOD ? { status: 101, contentType: 'application/json', body: '' } : undefined) };
    const corpus = join(dir, 'sampled', 'load.corpus.json');
    const replay = async (name: string) => {
      const out = join(dir, name);
      const run = await runLoad({ url: proxy.url, corpus, profile: 'smoke', rate: 50, duration: '2s', methods: [METHOD], out, log: () => undefined });
      return { run, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport };
    };
    for (const [path, { run, report }] of [['go', await replay('101-go')], ['js', await withoutExtension(k6.path, () => replay('101-js'))]] as const) {
      expect(report.k6.recognition).to.equal(path);
      expect(run.exitCode, `${path}: ${run.summary}`).to.equal(1);
      const m = report.methods[METHOD]!;
      expect(m.classes.http_error, path).to.equal(m.requests).and.to.be.above(90);
      expect(report.generator.scriptErrors, `${path}: no script error`).to.equal(undefined);
    }
  });

  for (const [path, patch] of Object.entries(PATCHES)) {
    it(`${path} path: one iteration that throws makes the run INCONCLUSIVE (exit 3), counted apart and named with its error`, async function () {
      const k6 = await requireTool(this, 'k6');
      const { run, report } = await withScriptPatched(k6.path, patch, () => runIn(path));
      expect(report.k6.recognition).to.equal(path);
      expect(run.exitCode, run.summary).to.equal(3);
      expect(report.verdict).to.equal('inconclusive');
      expect(report.generator).to.deep.include({ scriptErrors: 1 });
      expect(report.generator.scriptError).to.match(new RegExp(`^${METHOD}: Error: injected fault`));
      expect(report.generator.uncounted, 'the thrown iteration is not taken for figures lost').to.equal(undefined);
      expect(report.reasons).to.have.length(1);
      expect(report.reasons?.[0]).to.match(/^not judged: 1 iteration of the harness's k6 script threw, so its answer was judged by no check \(first: eth_getBlockByHash: Error: injected fault/);
      expect(run.summary).to.match(/INCONCLUSIVE/);
    });
  }
});
