// Operator traps (issue 15): a gate that overwrites its own baseline, a comparison of two different tests,
// --network against another chain, option values and files that are wrong. Each is a one-line usage error
// (exit 2) naming the option or file, answered before any endpoint or k6 is touched where it can be.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_ENDPOINT, type RunShape, shapeDifferences } from '../../load/report/compare.ts';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { cli } from '../support/cli.ts';


function oneLineUsage(r: { code: number; err: string }, what: RegExp): void {
  expect(r.code, r.err).to.equal(2);
  expect(r.err.trim().split('\n'), r.err).to.have.length(1);
  expect(r.err).to.match(what);
}

describe('operator safety', function () {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operator-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a --baseline that the run would overwrite (the default --out), before starting anything', async () => {
    const out = join(dir, 'reports');
    await cli(['load', '--help']); // warm the CLI build
    const { mkdir } = await import('node:fs/promises');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'load.json'), '{"kept":true}');
    const r = await cli(['load', '--profile', 'gate', '--baseline', 'reports/load.json'], dir);
    oneLineUsage(r, /--baseline reports\/load\.json is the load\.json this run writes .*overwrite its own baseline/);
    expect(r.err).to.not.match(/embedded default/);
    expect(await readFile(join(out, 'load.json'), 'utf8')).to.equal('{"kept":true}');
    // The same file through another spelling of the path is the same file.
    oneLineUsage(await cli(['load', '--baseline', './reports/../reports/load.json', '--out', 'reports/'], dir), /overwrite its own baseline/);
  });

  it('a wrong option value names the option and the valid values', async () => {
    oneLineUsage(await cli(['load', '--profile', 'bogus']), /--profile must be one of smoke, gate, capacity, soak, got "bogus"/);
    oneLineUsage(await cli(['load', '--methods', 'eth_getBlockByHash,eth_foo']), /--methods: unknown method eth_foo; valid: eth_estimateGas, .*eth_getBlockReceipts\n?$/);
    oneLineUsage(await cli(['conformance', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--methods', 'eth_foo']), /--methods: unknown method eth_foo; valid: .*, service, reference\n?$/);
    oneLineUsage(await cli(['load', '--duration', '5x']), /--duration takes a duration such as 30s, 5m or 1h30m .*got "5x"/);
    oneLineUsage(await cli(['load', '--rate', '0']), /--rate takes a positive whole number, got "0"/);
    oneLineUsage(await cli(['load', '--rate']), /--rate takes a value; `rpc-certify load --help` says what/);
    oneLineUsage(await cli(['conformance', '--rate', '3']), /Unknown option '--rate'; `rpc-certify conformance --help` lists the options/);
    oneLineUsage(await cli(['load', '--bogus']), /Unknown option '--bogus'; `rpc-certify load --help` lists the options/);
  });

  it('a count option takes only a positive decimal whole number: empty, hex, exponent or padded is refused, never the default', async () => {
    const url = 'http://127.0.0.1:1/v3/operator-key-1';
    for (const bad of ['', '0x10', '1e3', ' 7', '7 ', '+7', '07.0']) {
      oneLineUsage(await cli(['conformance', '--url', url, `--receipts-budget=${bad}`]), new RegExp(`--receipts-budget takes a positive whole number, got "${bad.replace(/[.+]/g, '\\$&')}"`));
    }
    oneLineUsage(await cli(['conformance', '--url', url, '--discovery-budget=']), /--discovery-budget takes a positive whole number, got ""/);
  });

  it('runs the CLI bundled into dist/ (bin/build-cli.js), rebuilt for the current sources', async () => {
    const { currentBuild } = (await import(new URL('../../bin/build-cli.js', import.meta.url).href)) as { currentBuild: () => string };
    const { existsSync } = await import('node:fs');
    expect((await cli(['--help'])).code).to.equal(0);
    expect(existsSync(join(currentBuild(), 'main.js')), currentBuild()).to.equal(true);
  });

  it('a bad --corpus or --targets file is named, with what is wrong with it', async () => {
    const garbage = join(dir, 'garbage.json');
    await writeFile(garbage, 'not json at all\n');
    const notCorpus = join(dir, 'other.json');
    await writeFile(notCorpus, '{"version":2,"entries":null}');
    oneLineUsage(await cli(['load', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--corpus', garbage]), /--corpus .*garbage\.json: not JSON/);
    oneLineUsage(await cli(['load', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--corpus', notCorpus]), /--corpus .*other\.json: not a corpus written by rpc-certify load/);
    oneLineUsage(await cli(['load', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--corpus', join(dir, 'missing.json')]), /--corpus .*missing\.json: cannot read it \(ENOENT\)/);
    oneLineUsage(await cli(['conformance', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--targets', garbage]), /--targets .*garbage\.json: not JSON, so not a targets lockfile/);
    oneLineUsage(await cli(['conformance', '--url', 'http://127.0.0.1:1/v3/operator-key-1', '--targets', join(dir, 'missing.json')]), /--targets .*missing\.json: cannot read it \(ENOENT\)/);
  });

  it('tells runs of different tests apart: profile, rate, duration, methods, endpoint, chain', () => {
    const gate: RunShape = { profile: 'gate', rate: 20, durationSec: 60, methods: ['eth_getBlockByHash', 'eth_getBlockReceipts'], endpoint: 'https://host/v3/<redacted>', chainId: '0x1' };
    expect(shapeDifferences(gate, { ...gate })).to.deep.equal([]);
    // Two services on one host are two endpoints: the port and the scheme count, the key (redacted in both) does not.
    const local = { ...gate, endpoint: 'http://127.0.0.1:4001/v3/<redacted>' };
    expect(shapeDifferences(local, { ...local, endpoint: 'http://127.0.0.1:5002/v3/<redacted>' })).to.deep.equal(['endpoint http://127.0.0.1:4001/v3/<redacted> in the baseline, http://127.0.0.1:5002/v3/<redacted> now']);
    expect(shapeDifferences(gate, { ...gate, endpoint: 'http://host/v3/<redacted>' })[0]).to.match(/^endpoint https:\/\/host\/.* in the baseline, http:\/\/host\//);
    expect(shapeDifferences(gate, { ...gate, endpoint: 'https://host:443/v3/<redacted>' }), 'the default port is no other endpoint').to.deep.equal([]);
    // The embedded default listens on a free port each run: its runs are named, not addressed, so they compare.
    expect(shapeDifferences({ ...gate, endpoint: EMBEDDED_ENDPOINT }, { ...gate, endpoint: EMBEDDED_ENDPOINT })).to.deep.equal([]);
    const smoke = { ...gate, profile: 'smoke', rate: 5, durationSec: 10 };
    expect(shapeDifferences(gate, smoke)).to.deep.equal(['profile gate in the baseline, smoke now', 'rate 20 rps per method in the baseline, 5 rps per method now', 'duration 60 s in the baseline, 10 s now']);
    expect(shapeDifferences(gate, { ...gate, methods: ['eth_getBlockByHash'] })[0]).to.match(/methods differ \(eth_getBlockReceipts only in the baseline\)/);
    expect(shapeDifferences(gate, { ...gate, endpoint: 'https://other/v3/<redacted>' })[0]).to.match(/^endpoint https:\/\/host\/v3\/<redacted> in the baseline/);
    expect(shapeDifferences(gate, { ...gate, chainId: '0xaa36a7' })).to.deep.equal(['chain id 0x1 in the baseline, 0xaa36a7 now']);
  });

  describe('--network against an endpoint of another chain', function () {
    let devnet: Devnet;
    before(async () => {
      devnet = await startDevnet();
    });
    after(async () => {
      await devnet?.stop();
    });

    it('conformance and load refuse it (exit 2), naming both chains', async () => {
      const base = devnet.url.slice(0, devnet.url.indexOf('/v3/'));
      const key = devnet.url.slice(devnet.url.indexOf('/v3/') + 4);
      const args = ['--network', 'mainnet', '--base-url', base, '--api-key', key, '--out', join(dir, 'net')];
      const conformance = await cli(['conformance', ...args]);
      oneLineUsage(conformance, /endpoint not usable: --network mainnet is chain 0x1, but the endpoint serves chain 0x7a69/);
      const load = await cli(['load', ...args, '--methods', 'eth_getBlockByHash', '--duration', '1s']);
      expect(load.code, load.err).to.equal(2);
      expect(load.err).to.match(/--network mainnet is chain 0x1, but the endpoint serves chain 0x7a69/);
      expect(load.out + load.err).to.not.include(key);
    });
  });
});
