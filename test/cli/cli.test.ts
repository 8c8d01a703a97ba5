// The command line's contract: exit codes 0/1/2, one-line reasons without stack traces, and an API key
// that appears in no byte the harness prints or writes.
import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { startAnvil, type Anvil } from '../../devnet/anvil.ts';
import { cli } from '../support/cli.ts';
import { harnessVersion } from '../../core/node/version.ts';
import { join, resolve as resolvePath } from 'node:path';
import { linkedStamp, toolsDir, versionOutput } from '../../core/node/tools/go-install.ts';
import { findK6, k6BuildStamp } from '../../core/node/tools/k6.ts';
import { requireTool } from '../support/tools.ts';

const SENTINEL = 'SENTINEL-KEY-123-rpc-certify';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('command line', function () {
  let devnet: Devnet;
  let anvil: Anvil;
  before(async () => {
    devnet = await startDevnet({ apiKey: SENTINEL });
    anvil = await startAnvil();
  });
  after(async () => {
    await devnet?.stop();
    await anvil?.stop();
  });

  it('--help documents every command and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).to.equal(0);
    for (const c of ['start', 'conformance', 'load', 'compare', 'devnet', 'doctor']) expect(r.out).to.include(c);
    const sub = await cli(['conformance', '--help']);
    expect(sub.code).to.equal(0);
    for (const opt of ['--url', '--network', '--api-key', '--out', '--strict', '--targets', '--methods']) expect(sub.out).to.include(opt);
  });

  it('a usage error exits 2 with one line', async () => {
    for (const args of [['no-such-command'], ['conformance'], ['conformance', '--network', 'mainnet'], ['conformance', '--url', 'http://127.0.0.1:1/v3/x', '--timeout', 'soon'], ['conformance', '--url', 'http://127.0.0.1:1/v3/x', '--reverts', '/nonexistent/reverts.json'], ['conformance', '--url', 'http://127.0.0.1:1/v3/x', '--reverts', 'package.json']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.err.trim().split('\n'), r.err).to.have.length(1);
      expect(r.err).to.not.match(/\n\s+at /);
    }
  });

  it('a --url (or --base-url) that is no http(s) URL is a usage error naming the option, not a run that waits out its deadline (it hung 5 minutes)', async () => {
    for (const [args, flag] of [[['conformance', '--url', 'not-a-url'], '--url'], [['conformance', '--url', 'ftp://host/v3/abcdefgh12345678'], '--url'], [['load', '--url', 'not-a-url'], '--url'], [['conformance', '--network', 'mainnet', '--api-key', 'abcdefgh12345678', '--base-url', 'ftp://x'], '--base-url']] as const) {
      const r = await cli([...args]);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.err.trim(), args.join(' ')).to.match(new RegExp(`^rpc-certify: ${flag} takes an http\\(s\\) URL`));
      expect(r.err).to.not.include('abcdefgh12345678');
      expect(r.ms, 'no deadline waited out').to.be.below(30_000);
    }
  });

  it('every usage error names its option in one line of the harness\'s words (no library text), before anything starts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rc-usage-'));
    const conformanceJson = join(dir, 'conformance.json');
    await writeFile(conformanceJson, JSON.stringify({ schemaVersion: 1, kind: 'rpc-certify-conformance' }));
    const url = 'http://127.0.0.1:1/v3/abcdefgh12345678';
    for (const [args, said] of [
      [['devnet', '--port', '99999'], /^rpc-certify: --port takes a port from 1 to 65535, got "99999"$/],
      [['load', '--url', url, '--rate', '-5'], /^rpc-certify: --rate was given a value starting with a dash/],
      [['load', '--url', url, '--fresh', '--no-fresh'], /^rpc-certify: --fresh and --no-fresh contradict each other/],
      [['load', '--url', url, '--max-head-lag', '0'], /^rpc-certify: --max-head-lag takes a number of seconds above 0/],
      [['conformance', '--url', url, '--reference-url', 'http://127.0.0.1:2/v3/ijklmnop12345678', '--max-head-lag', '0'], /^rpc-certify: --max-head-lag takes a number of seconds above 0/],
      [['conformance', '--url', url, '--max-head-lag-blocks', '2'], /^rpc-certify: --max-head-lag and --max-head-lag-blocks need --reference-url/],
      [['compare', conformanceJson, conformanceJson], /conformance\.json: a conformance report \(kind rpc-certify-conformance\), not a load report: compare and --baseline take a load\.json$/],
      [['conformance', '--url'], /^rpc-certify: --url takes a value; `rpc-certify conformance --help` says what$/],
      [['conformance', '--url', url, '--strict=yes'], /^rpc-certify: --strict is a switch and takes no value/],
      [['doctor', '--bogus'], /^rpc-certify: Unknown option '--bogus'; `rpc-certify doctor --help` lists the options$/],
      [['load', '--url', url, '--baseline', '/nonexistent/load.json'], /^rpc-certify: --baseline \/nonexistent\/load\.json: cannot read it \(ENOENT\)$/],
      [['load', '--url', url, '--reference-url', 'not-a-url'], /^rpc-certify: --reference-url takes an http\(s\) URL/],
      [['conformance', '--url', url, '--out', 'README.md'], /^rpc-certify: --out README\.md: .*README\.md is not a directory$/],
      [['conformance', '--url', url, '--out', '/proc/rpc-certify-out'], /^rpc-certify: --out \/proc\/rpc-certify-out: cannot create \/proc\/rpc-certify-out \(ENOENT\)$/],
      [['conformance', '--url', url, '--timeout', '99999999999'], /^rpc-certify: --timeout takes at most 2147483647 ms/],
      [['conformance', '--url', url, '--deadline', '999999h'], /^rpc-certify: --deadline takes a duration such as 90s, 10m or 1h30m \(at most 24 days\)/],
    ] as const) {
      const r = await cli([...args]);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.err.trim(), args.join(' ')).to.match(said);
      expect(r.err.trim().split('\n')).to.have.length(1);
    }
  });

  it('--url with --network: the URL is checked against the network\'s chain, not the network silently dropped', async () => {
    const r = await cli(['conformance', '--url', devnet.url, '--network', 'mainnet', '--out', await mkdtemp(join(tmpdir(), 'rc-'))]);
    expect(r.code).to.equal(2);
    expect(r.err.trim()).to.match(/endpoint not usable: --network mainnet is chain 0x1, but the endpoint serves chain 0x[0-9a-f]+: not the network asked for$/);
  });

  it('a run that ends before writing its reports (a usage error found late, an endpoint not usable) leaves no earlier report in --out', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-stale-'));
    const conformanceJson = join(out, 'conformance.json');
    await writeFile(conformanceJson, JSON.stringify({ schemaVersion: 1, kind: 'rpc-certify-conformance', summary: { verdict: 'pass' } }));
    for (const f of ['load.json', 'load.junit.xml', 'load.html']) await writeFile(join(out, f), '{"verdict":"pass"}');
    // --baseline given a conformance.json: refused once the load modules are loaded, after --out was cleared.
    const r = await cli(['load', '--url', devnet.url, '--baseline', conformanceJson, '--out', out]);
    expect(r.code, r.err).to.equal(2);
    expect((await readdir(out)).sort(), 'only the baseline input stays').to.deep.equal(['conformance.json']);
    const c = await cli(['conformance', '--url', `http://127.0.0.1:${await freePort()}/v3/${SENTINEL}`, '--out', out]);
    expect(c.code).to.equal(2);
    expect(await readdir(out), 'the conformance.json of an earlier run is gone too').to.deep.equal([]);
  });

  it('an https:// URL to a plain-http server says so, not in OpenSSL\'s words', async () => {
    const r = await cli(['conformance', '--url', devnet.url.replace('http://', 'https://'), '--out', await mkdtemp(join(tmpdir(), 'rc-'))]);
    expect(r.code).to.equal(2);
    expect(r.err.trim()).to.match(/endpoint not usable: endpoint unreachable: TLS handshake failed \(EPROTO\): the server does not speak TLS on that port; is it an http:\/\/ endpoint given as https:\/\/\?$/);
  });

  it('an unreachable endpoint exits 2 with a one-line reason', async () => {
    const r = await cli(['conformance', '--url', `http://127.0.0.1:${await freePort()}/v3/${SENTINEL}`, '--out', await mkdtemp(join(tmpdir(), 'rc-'))]);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/endpoint not usable: endpoint unreachable/);
    expect(r.err.trim().split('\n')).to.have.length(1);
    expect(r.out + r.err).to.not.include(SENTINEL);
  });

  it('a refused API key exits 2 and says so', async () => {
    const r = await cli(['conformance', '--url', devnet.url.replace(SENTINEL, 'wrong-key-0000'), '--out', await mkdtemp(join(tmpdir(), 'rc-'))]);
    expect(r.code).to.equal(2);
    expect(r.err).to.match(/API key refused/);
  });

  it('an endpoint with fatal failures (raw anvil) exits 1', async () => {
    const r = await cli(['conformance', '--url', anvil.url, '--quiet', '--out', await mkdtemp(join(tmpdir(), 'rc-'))]);
    expect(r.code, r.err).to.equal(1);
    expect(r.out).to.match(/conformance: FAIL/);
  });

  it('certifies the reference gateway with its known deviations (exit 0), and the key appears in no output or report', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-'));
    const r = await cli(['conformance', '--url', devnet.url, '--expect', 'fixtures/expectations/embedded.json', '--out', out]);
    expect(r.code, r.out + r.err).to.equal(0);
    expect(r.out + r.err).to.not.include(SENTINEL);
    const files = await readdir(out);
    expect(files).to.include.members(['conformance.json', 'conformance.junit.xml', 'conformance.html', 'targets.lock.json']);
    for (const f of files) expect(await readFile(join(out, f), 'utf8'), f).to.not.include(SENTINEL);
    expect(await readFile(join(out, 'conformance.json'), 'utf8')).to.include('/v3/<redacted>');
    // The header both reports share: kind, layout, the harness that wrote it.
    const { kind, schemaVersion, harness } = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as Record<string, unknown>;
    expect({ kind, schemaVersion, harness }).to.deep.equal({ kind: 'rpc-certify-conformance', schemaVersion: 2, harness: { name: 'rpc-certify', version: harnessVersion } });
  });

  it('a --methods subset says in every report that the methods it left out are not certified (red team C7: a one-method run read PASS alone)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-'));
    const r = await cli(['conformance', '--url', devnet.url, '--methods', 'eth_getTransactionByHash', '--out', out]);
    expect(r.code, r.out + r.err).to.equal(0);
    const left = ['eth_estimateGas', 'eth_getBlockByHash', 'eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionReceipt', 'eth_getBlockReceipts', 'history', 'service'];
    expect(r.out).to.include(`scope: 1 of the spec's 8 methods (--methods); NOT certified by this run: ${left.join(', ')}`);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { summary: { verdict: string; notCertified?: string[] } };
    expect(report.summary.notCertified).to.deep.equal(left);
    const junit = await readFile(join(out, 'conformance.junit.xml'), 'utf8');
    for (const m of left) expect(junit).to.include(`name="${m} not certified"`);
    expect(junit).to.include('message="not certified: eth_getBlockReceipts was left out of this run by --methods"');
    expect(await readFile(join(out, 'conformance.html'), 'utf8')).to.include('NOT certified by this run');
    // The whole run names no such scope.
    const all = await mkdtemp(join(tmpdir(), 'rc-'));
    await cli(['conformance', '--url', devnet.url, '--expect', 'fixtures/expectations/embedded.json', '--out', all, '--quiet']);
    expect((JSON.parse(await readFile(join(all, 'conformance.json'), 'utf8')) as { summary: object }).summary).to.not.have.property('notCertified');
  });
});

describe('the tools folder (core/node/tools/go-install.ts)', () => {
  it('a binary that never answers `version` is passed over within 10 s, its whole process group killed (red team C5: load and doctor hung)', async function () {
    this.timeout(30_000);
    const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-hang-'));
    const pidFile = join(dir, 'sleeper.pid');
    const k6 = join(dir, 'k6');
    await writeFile(k6, `#!/bin/bash\nsleep 3600 &\necho $! > ${pidFile}\nwait\n`, { mode: 0o755 });
    const started = Date.now();
    expect(await versionOutput(k6)).to.equal(undefined);
    expect(Date.now() - started).to.be.within(9_000, 15_000);
    const sleeper = Number(await readFile(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Gone, or a zombie not reaped yet (its parent, the wrapper, was killed with it).
    const state = await readFile(`/proc/${sleeper}/stat`, 'utf8').then((stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3), () => 'gone');
    expect(state, "the wrapper's child is killed too").to.be.oneOf(['gone', 'Z']);
    expect(await versionOutput('/bin/false'), 'a failing probe').to.equal(undefined);
  });

  it("the tools dir's k6 counts only with the stamp of the k6ext/ sources it was built from (none, or another's: ensureK6 builds it anew)", async function () {
    const k6 = await requireTool(this, 'k6');
    if (!k6.extension) this.skip(); // a user's own k6 on PATH: nothing in the tools dir to judge
    const tools = await mkdtemp(join(tmpdir(), 'rc-tools-'));
    const saved = { tools: process.env['RPC_CERTIFY_TOOLS'], path: process.env['PATH'] };
    await mkdir(join(tools, 'bin'));
    await symlink(k6.path, join(tools, 'bin', 'k6'));
    const stamp = join(tools, 'bin', 'k6.stamp');
    process.env['RPC_CERTIFY_TOOLS'] = tools;
    process.env['PATH'] = join(tools, 'empty'); // no k6 of the user's own
    try {
      expect(await findK6(), 'no stamp: a build of unknown sources').to.equal(undefined);
      await writeFile(stamp, `${'0'.repeat(64)}\n`);
      expect(await findK6(), 'the stamp of other sources').to.equal(undefined);
      await writeFile(stamp, `${await k6BuildStamp()}\n`);
      expect(await findK6()).to.deep.include({ path: join(tools, 'bin', 'k6'), source: 'tools', extension: true });
    } finally {
      process.env['RPC_CERTIFY_TOOLS'] = saved.tools;
      process.env['PATH'] = saved.path;
      if (saved.tools === undefined) delete process.env['RPC_CERTIFY_TOOLS'];
      await rm(tools, { recursive: true, force: true });
    }
    // Any byte of a linked module's files changes the stamp.
    const module = await mkdtemp(join(tmpdir(), 'rc-ext-'));
    try {
      await writeFile(join(module, 'a.go'), 'package a\n');
      const linked = { main: 'package main', modules: [{ module: 'example.invalid/a', dir: module }] };
      const cmd = { name: 'k6', module: 'm', pkg: 'm', version: 'v1', minGo: [1, 25] as [number, number] };
      const before = await linkedStamp(cmd, linked);
      expect(await linkedStamp(cmd, linked)).to.equal(before);
      await writeFile(join(module, 'a.go'), 'package a \n');
      expect(await linkedStamp(cmd, linked)).to.not.equal(before);
    } finally {
      await rm(module, { recursive: true, force: true });
    }
  });

  it('RPC_CERTIFY_TOOLS given relative is made absolute (go install takes GOBIN only absolute; red team C4)', () => {
    const before = process.env['RPC_CERTIFY_TOOLS'];
    process.env['RPC_CERTIFY_TOOLS'] = 'relative-tools';
    try {
      expect(toolsDir()).to.equal(resolvePath(process.cwd(), 'relative-tools'));
    } finally {
      if (before === undefined) delete process.env['RPC_CERTIFY_TOOLS'];
      else process.env['RPC_CERTIFY_TOOLS'] = before;
    }
  });
});
