// The method table drives the code (core/methods.ts): a ninth row, added to a copy of the project, compiles in every
// source file (only tests that spell a record per method want the new entry), and runs: sampling gives it hits and
// misses answered right on a real anvil behind the gateway, the head-chasing client asks it from its parameter kinds,
// the gateway normalises its answers by their shape. The row is a real method outside the spec's eight
// (eth_getTransactionByBlockHashAndIndex), so every step meets real answers.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const NINTH = 'eth_getTransactionByBlockHashAndIndex';
const ROW = `  ${NINTH}: { section: '4.9', params: ['blockHash', 'index'], result: 'transaction', immutable: true, tags: NO_TAGS, weight: 5, chased: true, namesItsBlock: false, windowed: false, decimalNumber: false, pendingIsLatest: false },\n`;

/** What the copy's consumers make of the ninth row, printed as JSON by a script run in the copy. */
const PROBE = `
import { startDevnet } from './devnet/index.ts';
import { sampleCorpus } from './load/plan/sample.ts';
import { OBJECT_ASKS, FRESH_METHODS } from './load/shared/freshness.ts';
import { METHODS } from './core/methods.ts';
import { buildPlan } from './load/shared/profiles.ts';
const devnet = await startDevnet();
try {
  const corpus = await sampleCorpus({ url: devnet.url, seed: 1, missShare: 0.1, methods: METHODS });
  const entries = corpus.entries['${NINTH}'] ?? [];
  const plan = buildPlan({ profile: 'smoke', seed: 1, instances: 1, methods: [...METHODS] });
  console.log(JSON.stringify({
    methods: METHODS,
    sampling: corpus.sampling['${NINTH}'],
    kinds: [...new Set(entries.map((e) => e.kind))].sort(),
    asks: OBJECT_ASKS.filter((a) => a.method === '${NINTH}'),
    fresh: FRESH_METHODS.includes('${NINTH}'),
    scenario: plan.scenarios.some((s) => s.name === '${NINTH}'),
    stripped: await (async () => {
      const hit = entries.find((e) => e.kind === 'hit');
      const r = await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: '${NINTH}', params: hit?.params }) });
      const tx = ((await r.json()) as { result?: Record<string, unknown> }).result;
      return tx !== undefined && tx !== null && typeof tx['hash'] === 'string';
    })(),
  }));
} finally {
  await devnet.stop();
}
`;

describe('a ninth row in the method table', function () {
  this.timeout(180_000);
  let copy: string;
  before(async () => {
    copy = await mkdtemp(join(tmpdir(), 'rc-ninth-'));
    const { stdout } = await run('git', ['ls-files'], { cwd: ROOT, maxBuffer: 16 << 20 });
    for (const f of stdout.split('\n').filter(Boolean)) {
      await mkdir(dirname(join(copy, f)), { recursive: true });
      await cp(join(ROOT, f), join(copy, f));
    }
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const table = join(copy, 'core', 'methods.ts');
    const source = await readFile(table, 'utf8');
    const last = source.indexOf('\n', source.indexOf('  eth_getBlockReceipts: {')) + 1;
    expect(last, 'the table\'s last row').to.be.above(0);
    await writeFile(table, source.slice(0, last) + ROW + source.slice(last));
    await writeFile(join(copy, 'probe.ts'), PROBE);
  });
  after(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('compiles in every source file and the k6 bundle\'s; only a test that spells one record per method wants the new entry', async () => {
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const errors = async (project: string) => (await run(tsc, ['-p', project, '--noEmit'], { cwd: copy }).then(() => '', (e: { stdout?: string }) => e.stdout ?? String(e))).split('\n').filter((l) => /error TS/.test(l));
    const main = await errors('tsconfig.json');
    expect(main.filter((l) => !l.startsWith('test/')), 'no source file breaks').to.deep.equal([]);
    expect(main.length, 'the copy did get a ninth row (a per-method record in a test wants it)').to.be.above(0);
    expect(await errors('load/k6/tsconfig.json')).to.deep.equal([]);
  });

  it('runs: sampled (hits and misses, served) on anvil behind the gateway, chased from its parameter kinds, planned as a load scenario', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'probe.ts'], { cwd: copy, maxBuffer: 16 << 20 });
    const got = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { methods: string[]; sampling?: { status: string; tried: Record<string, number> }; kinds: string[]; asks: Array<{ fills: string[]; by: string }>; fresh: boolean; scenario: boolean; stripped: boolean };
    expect(got.methods).to.have.length(9);
    expect(got.sampling?.status, JSON.stringify(got.sampling)).to.equal('served');
    expect(got.kinds).to.include.members(['hit', 'miss']);
    expect(got.asks).to.deep.equal([{ method: NINTH, fills: ['hash', 'index0'], by: 'hash', result: 'transaction' }]);
    expect(got.fresh).to.equal(true);
    expect(got.scenario).to.equal(true);
    expect(got.stripped).to.equal(true);
  });
});
