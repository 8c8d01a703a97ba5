// A key echoed cut short, `-` spelled `_`, or in base32 gives most of it away (issue 35): every run of 8 or more of its
// characters (12 for an all-hex key) is redacted, in every spelling, at every alignment; never inside a longer 0x hex
// run, so hashes and data stay whole. A whole run through the CLI against an endpoint echoing such fragments leaks none.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact, registerSecret } from '../../core/redact.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { cli } from '../support/cli.ts';

/** RFC 4648 base32 of a text, as a test writes it (independent of the module's own). */
function base32(text: string): string {
  const bits = [...Buffer.from(text)].map((b) => b.toString(2).padStart(8, '0')).join('');
  return (bits.match(/.{1,5}/g) ?? []).map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(c.padEnd(5, '0'), 2)]).join('');
}

describe('fragments of a key', function () {
  const KEY = 'Qv7-FRAGkey-91xw-Zt3';
  before(() => registerSecret(KEY));

  it('a prefix or suffix cut short, a run from the middle, in any case or with `_` for `-`: redacted; 7 characters are not', function () {
    expect(redact(`invalid project id ${KEY.slice(0, 12)}...`)).to.equal('invalid project id <redacted>...');
    expect(redact(`…${KEY.slice(-9)} refused`)).to.equal('…<redacted> refused');
    expect(redact(`key ${KEY.slice(3, 14).toLowerCase().replace(/-/g, '_')}!`)).to.equal('key <redacted>!');
    expect(redact(`seven ${KEY.slice(4, 11)} stays`)).to.equal(`seven ${KEY.slice(4, 11)} stays`);
  });

  it('hex, base64, base64url and base32 of a part of it, at any alignment inside a longer encoded text', function () {
    for (const prefix of ['', 'x', 'xy', 'xyz', 'wxyz']) {
      const part = `${prefix}${KEY.slice(2, 15)}`;
      for (const encoded of [Buffer.from(part).toString('hex'), Buffer.from(part).toString('base64'), Buffer.from(part).toString('base64url'), base32(part)]) {
        expect(redact(`data ${encoded} end`), `${prefix}: ${encoded}`).to.not.include(encoded.slice(-12, -3));
      }
    }
  });

  it('never inside a longer 0x hex run: a hash holding 12 hex digits of an all-hex key stays whole, the key alone does not', function () {
    const hash = `0x${'3c'.repeat(4)}a1b2c3d4e5f6a7b8c9d0e1f2${'7d'.repeat(16)}`;
    const hexKey = 'a1b2c3d4e5f6a7b8c9d0e4f1c7a2d9b3';
    registerSecret(hexKey);
    expect(redact(`block ${hash} mined`)).to.equal(`block ${hash} mined`);
    expect(redact(`key ${hexKey.slice(0, 14)}…`)).to.equal('key <redacted>…');
  });

  it('its hex spelling inside 0x data is redacted: a revert\'s Error(string) holding the key cut short', function () {
    const data = `0x08c379a0${Buffer.from(`invalid project id ${KEY.slice(0, 11)}`).toString('hex')}`;
    expect(redact(data)).to.not.include(Buffer.from(KEY.slice(0, 11)).toString('hex').slice(2, 18));
    expect(redact(data)).to.match(/^0x08c379a0[0-9a-f]+<redacted>/);
  });
});

describe('fragments of a key echoed by an endpoint, through the command line', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  const KEY = 'SENTINEL-KEY-7cb0e1f2a3b4c5d6e7f8';
  before(async () => {
    devnet = await startDevnet();
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
    // Errors echo the key cut short, spelled with `_`, and in base32, as gateways do.
    proxy.fault = { name: 'fragments echoed', kills: [], serveAnyKey: true, rewrite: (_req, res) => (res.error ? { ...res, error: { ...res.error, message: `invalid project id ${KEY.slice(0, 17)}... (${KEY.slice(4).replace(/-/g, '_')})`, data: base32(KEY.slice(3, 20)) } } : res) };
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  it('a key made of pieces of the chain\'s own block hashes: every hash in the reports stays whole', async function () {
    const hashes = [devnet.seed.blocks.multiTx.hash, devnet.seed.blocks.empty.hash];
    const key = `${hashes[0]!.slice(2, 16)}-${hashes[1]!.slice(20, 34)}`;
    const out = await mkdtemp(join(tmpdir(), 'rc-fragments-hashes-'));
    const saved = proxy.fault;
    proxy.fault = { name: 'any key', kills: [], serveAnyKey: true };
    try {
      const run = await cli(['conformance', '--url', proxy.url.replace(FaultProxy.KEY, key), '--out', out, '--methods', 'eth_getBlockByHash,eth_getBlockReceipts']);
      const report = await readFile(join(out, 'conformance.json'), 'utf8');
      expect(run.out + run.err + report, 'the key itself appears nowhere').to.not.include(key);
      for (const hash of hashes) expect(report, hash).to.include(hash);
      expect(report.match(/0x<redacted>|[0-9a-f]<redacted>|<redacted>[0-9a-f]/g) ?? [], 'no hash cut by a redaction').to.deep.equal([]);
    } finally {
      proxy.fault = saved;
    }
  });

  it('no run of 8 of its characters, in any of those spellings, in the terminal or any report', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-fragments-'));
    const url = proxy.url.replace(FaultProxy.KEY, KEY);
    const run = await cli(['conformance', '--url', url, '--out', out, '--methods', 'eth_estimateGas,eth_getBlockByHash']);
    const texts = [run.out, run.err, ...(await Promise.all((await readdir(out)).map((f) => readFile(join(out, f), 'utf8'))))];
    expect(texts.join('')).to.include('invalid project id <redacted>', 'the echo reached the reports, redacted');
    const leaks = [KEY.slice(0, 8), KEY.slice(4, 12).replace(/-/g, '_'), base32(KEY.slice(3, 20)).slice(2, 12)];
    for (const leak of leaks) for (const text of texts) expect(text.toLowerCase(), leak).to.not.include(leak.toLowerCase());
  });
});
