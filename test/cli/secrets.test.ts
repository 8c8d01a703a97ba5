// The key-echo matrix: an endpoint that echoes the API key everywhere it can (its request path in error
// messages, headers, error data, results, `\u` escapes in either hex case, base64 and base64url, alone or
// inside a longer encoded text) in front of a real chain, and
// the whole suite run through the CLI for keys chosen to be awkward. No form of the key may reach stdout,
// stderr or any file written, and every report must still be whole.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportFaults } from '../../conformance/report/json.ts';
import { positionOnlySecrets, redact, redactCapped, redactDeep, redactUrl, registerUrlSecrets } from '../../core/redact.ts';
import { assertReport } from '../../load/report/report.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { cli } from '../support/cli.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

/** Echoes are wrapped in these, so a test can find each one whatever the key, even a key of one character. */
const OPEN = '@@';
const CLOSE = '@@';

const KEYS: Array<{ name: string; key: string; via: 'url' | 'api-key'; prefix?: string; shown?: string }> = [
  { name: 'URL-special characters', key: '{s"e c<r>t}', via: 'url' },
  { name: 'URL-special characters, given as --api-key', key: 'k{e}y|^`x', via: 'api-key' },
  { name: 'non-ASCII', key: 'ключ-ü-密钥', via: 'url' },
  { name: 'a JSON word', key: 'true', via: 'url' },
  { name: 'the hex prefix', key: '0x', via: 'url' },
  { name: 'one character', key: '7', via: 'url' },
  { name: 'three characters', key: 'Qz9', via: 'api-key' },
  // Not /v3/<KEY>: the key is still found in the path (and echoed lower-, upper-cased and hex-encoded, like every key of 8 or more).
  { name: 'an Alchemy-style /v2/<KEY> URL', key: 'SENTINELKEY123456', via: 'url', prefix: '/v2/' },
  // Found by its place: the last segment, short beside a long one (which, as long as a key, is hidden too).
  { name: 'the key as the last segment after a long one', key: 'abc123xyz9', via: 'url', prefix: '/ethereum-mainnet-archive/', shown: '/<redacted>/<redacted>' },
  { name: '128 characters', key: Array.from({ length: 128 }, (_, i) => 'AbCdEfGhJkMnPqRsTuVwXyZ23456789'[(i * 7) % 31]).join(''), via: 'url' },
];

/** Every character as a `\u` escape, the hex case alternating from one character to the next. */
function unicodeEscaped(text: string): string {
  return [...text]
    .map((ch, i) =>
      [...Array(ch.length).keys()]
        .map((u) => {
          const hex = ch.charCodeAt(u).toString(16).padStart(4, '0');
          return `\\u${i % 2 ? hex.toUpperCase() : hex}`;
        })
        .join(''),
    )
    .join('');
}

/** An endpoint in front of `upstream` that serves any key and echoes it in every place it can. */
async function echoingEndpoint(upstream: string, key: () => string): Promise<Server> {
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const path = req.url ?? '';
        const r = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        let text = await r.text();
        const echo = `${OPEN}${key()}${CLOSE}`;
        const where = `${path} ${path.replace(/^\/v[0-9]+\//, '')}`;
        // A gateway that normalises the path's case, and Ethereum data (hex of the key's bytes); for keys long enough not to occur by chance.
        const k = key();
        const recased = [...k].length >= 8 ? ` ${OPEN}${k.toLowerCase()}${CLOSE} ${OPEN}${k.toUpperCase()}${CLOSE} ${OPEN}0x${Buffer.from(k).toString('hex')}${CLOSE} ${OPEN}0x${Buffer.from(k).toString('hex').toUpperCase()}${CLOSE}` : '';
        try {
          const parsed = JSON.parse(text) as unknown;
          const request = JSON.parse(body) as { method?: unknown } | unknown[];
          const method = Array.isArray(request) ? undefined : request.method;
          const one = (m: Record<string, unknown>): Record<string, unknown> => {
            // Base64 and base64url: the key alone, and inside a longer token (its characters at some offset of the encoding).
            const token = `${OPEN}${Buffer.from(key()).toString('base64')}${CLOSE}`;
            const session = Buffer.from(`session=${path};`).toString('base64url');
            if (m['error'] && typeof m['error'] === 'object') {
              const e = m['error'] as { message?: string };
              return { ...m, error: { ...e, message: `${e.message ?? ''} (${OPEN}${where}${CLOSE} ${echo} ${token}${recased})`, data: { echo, path: `${OPEN}${path}${CLOSE}`, session } } };
            }
            if (method === 'web3_clientVersion') return { ...m, result: `${echo} at ${OPEN}${where}${CLOSE} as ${token} in ${session}${recased}` };
            if (m['result'] === null) return { jsonrpc: '2.0', id: m['id'], error: { code: -32000, message: `nothing at ${OPEN}${where}${CLOSE} for ${echo}, token ${token}`, data: { echo, session } } };
            if (m['result'] && typeof m['result'] === 'object' && !Array.isArray(m['result'])) return { ...m, result: { ...(m['result'] as object), echo, token: `${OPEN}${Buffer.from(key()).toString('base64url')}${CLOSE}`, session } };
            return m;
          };
          const answered = Array.isArray(parsed) ? parsed.map((m) => (m && typeof m === 'object' ? one(m as Record<string, unknown>) : m)) : parsed && typeof parsed === 'object' ? one(parsed as Record<string, unknown>) : parsed;
          text = JSON.stringify(answered);
          // Every other answer spells the key in `\u` escapes.
          if (n++ % 2) text = text.split(JSON.stringify(echo).slice(1, -1)).join(`${OPEN}${unicodeEscaped(key())}${CLOSE}`);
        } catch {
          // not JSON-RPC: passed on as it came
        }
        res.writeHead(r.status, { 'content-type': `application/json; echo="${path}"; token="${Buffer.from(key()).toString('base64')}"`, 'x-echo': path });
        res.end(text);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}


/** The spellings of a key an endpoint can echo, built here independently of core/redact.ts. */
function spellings(key: string, sentPath: string): string[] {
  const encoded = encodeURIComponent(key);
  const jsonInner = JSON.stringify(key).slice(1, -1);
  const lowerU = unicodeEscaped(key).replace(/\\u([0-9A-F]{4})/g, (_, h: string) => `\\u${h.toLowerCase()}`);
  const upperU = lowerU.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`);
  const sentKey = sentPath.replace(/^\/v[0-9]+\//, '');
  const hex = Buffer.from(key).toString('hex');
  return [...new Set([key, key.toLowerCase(), key.toUpperCase(), hex, hex.toUpperCase(), encoded, encoded.toLowerCase(), sentKey, sentKey.toLowerCase(), jsonInner, lowerU, upperU, unicodeEscaped(key), ...base64Spellings(key), ...base64Spellings(sentKey)])];
}

/**
 * Base64 and base64url of a key: alone, and inside a longer encoded text at each byte offset modulo 3, where
 * the key's own characters are those that come out the same whatever bytes surround it (all zeros, all ones).
 */
function base64Spellings(key: string): string[] {
  const bytes = Buffer.from(key);
  const out = [bytes.toString('base64'), bytes.toString('base64url')];
  for (const offset of [0, 1, 2]) {
    const around = (fill: number) => Buffer.concat([Buffer.alloc(offset, fill), bytes, Buffer.alloc(3, fill)]).toString('base64');
    const [zeros, ones] = [around(0), around(255)];
    const own = [...zeros].filter((c, i) => c === ones[i]).join('');
    out.push(own, own.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

describe('redact(): every spelling of a key', () => {
  // One process runs every test file: only a key no other test could contain is registered here.
  const key = 'unit-{é}"key/ü-9f3a';
  before(() => registerUrlSecrets(`http://127.0.0.1:1/v3/${encodeURIComponent(key)}`));

  it('raw, percent-encoded in either case, JSON-escaped, \\u-escaped in either case, mixed character by character', () => {
    const sent = encodeURIComponent(key);
    for (const form of [key, sent, sent.toLowerCase(), JSON.stringify(key).slice(1, -1), unicodeEscaped(key), unicodeEscaped(key).toLowerCase().replace(/\\u/g, '\\u'), `unit-%7B\\u00E9}\\"key\\/%C3%BC-9f3a`]) {
      expect(redact(`before ${form} after`), form).to.equal('before <redacted> after');
    }
  });

  it('a text redacted before a key is registered is redacted again after (short texts are remembered until then), in any case', () => {
    for (const [later, text] of [['Later-Key-7c41d0e9', (k: string) => `k ${k.toLowerCase()}`], ['Other-Key-e2b85f13', (k: string) => `a longer text, past what is remembered, holding ${k.toUpperCase()} among other words`]] as const) {
      expect(redact(text(later))).to.equal(text(later));
      registerUrlSecrets(`http://127.0.0.1:1/v3/${later}`);
      expect(redact(text(later)), text(later)).to.not.match(/(later|other)-key/i);
    }
  });

  it('cuts after redacting: a key straddling the cut leaves nothing of itself', () => {
    const text = `${'x'.repeat(95)}${key}${'y'.repeat(50)}`;
    expect(redactCapped(text, 100)).to.equal(`${'x'.repeat(95)}<reda`);
  });

  it('base64 and base64url: alone (padded or not), and inside a longer encoded text at any offset', () => {
    const sent = encodeURIComponent(key);
    for (const text of [key, sent]) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const alone = Buffer.from(text).toString(encoding);
        expect(redact(`token ${alone} end`), alone).to.equal('token <redacted> end');
        for (const before of ['', 'a', 'ab', 'abc', 'session=/v3/']) {
          const embedded = Buffer.from(`${before}${text};expires=1`).toString(encoding);
          const clean = redact(embedded);
          expect(clean, embedded).to.include('<redacted>');
          // What is left around the mark encodes the surrounding bytes, and at most the key's first and last few bits.
          expect(clean.replace('<redacted>', '').length, embedded).to.be.at.most(embedded.length - (Buffer.from(text).length * 4) / 3 + 4);
        }
      }
    }
    // Base64 with its `/` JSON-escaped (`\/`, as PHP and others write it) is still the key.
    const slashy = Buffer.from(key).toString('base64');
    expect(slashy).to.include('/');
    expect(redact(slashy.replace(/\//g, '\\/'))).to.equal('<redacted>');
  });

  it('values, not JSON text: the report stays JSON, and its own words stay', () => {
    const value = { verdict: 'pass', note: `echo ${key}`, [key]: [key, true, 7] };
    const clean = redactDeep(value, new Set(['pass']));
    expect(clean).to.deep.equal({ verdict: 'pass', note: 'echo <redacted>', '<redacted>': ['<redacted>', true, 7] });
  });
});

describe('redact(): keys in other URL shapes, other cases, hex, and holding "/"', () => {
  // Each test registers its own key, one no other test could contain (the registry is one per process).
  const hex = (text: string) => Buffer.from(text).toString('hex');

  const shapes: Array<[string, (key: string) => string, string]> = [
    ['/v3//KEY (a doubled slash)', (k) => `http://127.0.0.1:1/v3//${k}`, 'http://127.0.0.1:1/v3//<redacted>'],
    ['/V3/KEY (upper-case V)', (k) => `http://127.0.0.1:1/V3/${k}`, 'http://127.0.0.1:1/V3/<redacted>'],
    ['/v2/KEY (Alchemy-style)', (k) => `http://127.0.0.1:1/v2/${k}`, 'http://127.0.0.1:1/v2/<redacted>'],
    ['/KEY (QuickNode-style)', (k) => `http://127.0.0.1:1/${k}`, 'http://127.0.0.1:1/<redacted>'],
    ['/KEY/ (a trailing slash)', (k) => `http://127.0.0.1:1/${k}/`, 'http://127.0.0.1:1/<redacted>/'],
    // Segments no other test holds: a short one is hidden in the URL shown, but not removed from other text.
    ['/<network>/KEY (a deeper path)', (k) => `http://127.0.0.1:1/netQz5/${k}`, 'http://127.0.0.1:1/<redacted>/<redacted>'],
    // The last segment is hidden by its place, even after a key found by its version label (`/v1/lb/<KEY>`: the label's segment is not always the key).
    ['/v2/KEY/<extra> (a deeper path)', (k) => `http://127.0.0.1:1/v2/${k}/extQz6`, 'http://127.0.0.1:1/v2/<redacted>/<redacted>'],
  ];
  shapes.forEach(([name, url, shown], i) => {
    it(`a URL shaped ${name}: the key is a secret, and redactUrl() hides it`, () => {
      const key = `ShapeKey${i}Zq7Wx`;
      registerUrlSecrets(url(key));
      expect(redactUrl(url(key))).to.equal(shown);
      expect(redact(`invalid project ${key} (path ${url(key)})`)).to.not.include(key);
      if (i === 5) expect(positionOnlySecrets(url(key))).to.deep.equal(['path segment 1 (6 characters)']);
      if (i === 6) expect(positionOnlySecrets(url(key))).to.deep.equal(['path segment 3 (6 characters)']);
    });
  });

  it('the key as the last segment after a long one (/ethereum-mainnet-archive/<KEY>): hidden by its place, removed from any text, no short-key warning due', () => {
    const url = 'https://host.example/ethereum-mainnet-archive/abc123xyz9';
    registerUrlSecrets(url);
    expect(redactUrl(url)).to.equal('https://host.example/<redacted>/<redacted>');
    expect(redact('invalid project ABC123XYZ9 at /ethereum-mainnet-archive/abc123xyz9')).to.equal('invalid project <redacted> at /<redacted>/<redacted>');
    expect(positionOnlySecrets(url)).to.deep.equal([]);
  });

  it('a short last segment (…/<LONG KEY>/ext/bc/C/rpcQ8): hidden in the URL shown, not removed from text (it would cut words), named for the warning', () => {
    const long = 'LongKeyBefore0123456789';
    const url = `http://127.0.0.1:1/${long}/ext/bc/C/rpcQ8`;
    registerUrlSecrets(url);
    expect(redactUrl(url)).to.equal('http://127.0.0.1:1/<redacted>/ext/bc/C/<redacted>');
    expect(redact(`jsonrpcQ8 ${long}`)).to.equal('jsonrpcQ8 <redacted>');
    expect(positionOnlySecrets(url)).to.deep.equal(['path segment 5 (5 characters)']);
  });

  it('query values and userinfo: hidden in the URL shown; removed from text only from 8 characters up (a short one is named for the warning)', () => {
    const url = 'http://usrQ9:pwQ9longer@127.0.0.1:1/v3/QueryKey77?net=1&token=QueryTokenQ9';
    registerUrlSecrets(url);
    expect(redactUrl(url)).to.equal('http://<redacted>@127.0.0.1:1/v3/<redacted>?net=<redacted>&token=<redacted>');
    expect(redact('block 1 by usrQ9 with pwQ9longer and QueryTokenQ9')).to.equal('block 1 by usrQ9 with <redacted> and <redacted>');
    expect(positionOnlySecrets(url)).to.deep.equal(['the user name', 'the query value of "net"']);
  });

  it('/eth/<KEY> (Ankr-style): the key, as long as a key, is the secret; eth stays readable, so method names are not cut', () => {
    const key = `${'ab12'.repeat(16)}`;
    registerUrlSecrets(`http://127.0.0.1:1/eth/${key}`);
    expect(redactUrl(`http://127.0.0.1:1/eth/${key}`)).to.equal('http://127.0.0.1:1/eth/<redacted>');
    expect(redact(`eth_getBlockByHash failed for ${key.toUpperCase()}`)).to.equal('eth_getBlockByHash failed for <redacted>');
    registerUrlSecrets(`http://127.0.0.1:1/${key.slice(0, 40)}/rpcQz7`);
    expect(redactUrl(`http://127.0.0.1:1/${key.slice(0, 40)}/rpcQz7`)).to.equal('http://127.0.0.1:1/<redacted>/<redacted>');
    expect(redact('jsonrpcQz7')).to.equal('jsonrpcQz7');
  });

  it('/v3/<KEY> stays as it was: the version label is shown, the key is not', () => {
    registerUrlSecrets('http://127.0.0.1:1/v3/V3keepKey88');
    expect(redactUrl('http://127.0.0.1:1/v3/V3keepKey88?a=1')).to.equal('http://127.0.0.1:1/v3/<redacted>?a=<redacted>');
    expect(redact('at /v3/V3keepKey88 and /v3/someoneElse')).to.equal('at /v3/<redacted> and /v3/<redacted>');
  });

  it('a version label alone (/v3/, /v2) is no secret; one after a label is the key (/v3/v12345678)', () => {
    for (const url of ['http://127.0.0.1:1/v3/', 'http://127.0.0.1:1/v2']) registerUrlSecrets(url);
    expect(redact('api v3 and v2')).to.equal('api v3 and v2');
    registerUrlSecrets('http://127.0.0.1:1/v3/v90817263');
    expect(redactUrl('http://127.0.0.1:1/v3/v90817263')).to.equal('http://127.0.0.1:1/v3/<redacted>');
    expect(redact('key v90817263')).to.equal('key <redacted>');
  });

  it('a URL with no path (a plain node) registers nothing', () => {
    for (const url of ['http://127.0.0.1:8545', 'http://127.0.0.1:8545/']) {
      registerUrlSecrets(url);
      expect(redactUrl(url)).to.equal('http://127.0.0.1:8545/');
    }
    expect(redact('8545 127.0.0.1 http eth_getBlockByHash 0x1')).to.equal('8545 127.0.0.1 http eth_getBlockByHash 0x1');
  });

  it('lower-cased, upper-cased, mixed-case: still the key', () => {
    const key = 'CaseKey9SENTINELab';
    registerUrlSecrets(`http://127.0.0.1:1/v3/${key}`);
    for (const form of [key.toLowerCase(), key.toUpperCase(), 'cAsEkEy9sentinelAB', encodeURIComponent(key).toLowerCase()]) {
      expect(redact(`invalid project ${form} here`), form).to.equal('invalid project <redacted> here');
    }
  });

  it('hex-encoded UTF-8 bytes, with or without 0x, either case, alone or inside longer hex data', () => {
    const key = 'HexKey7SENTINEL-ü';
    registerUrlSecrets(`http://127.0.0.1:1/v2/${encodeURIComponent(key)}`);
    const h = hex(key);
    for (const form of [h, h.toUpperCase(), `0x${h}`, `0X${h.toUpperCase()}`]) {
      const clean = redact(`data ${form} end`);
      expect(clean, form).to.not.include(h.slice(2, -2));
      expect(clean.toLowerCase(), form).to.not.include(h.slice(2, -2));
      expect(clean, form).to.include('<redacted>');
    }
    const abi = `0x${'00'.repeat(31)}20${'00'.repeat(31)}${(h.length / 2).toString(16)}${h}${'00'.repeat(7)}`;
    expect(redact(abi).toLowerCase()).to.not.include(h.slice(2, -2));
  });

  it('a key holding "/" (sent as %2F) is removed whole, before the /v3/<segment> rule can cut it', () => {
    registerUrlSecrets('http://127.0.0.1:1/v3/SLASHY%2FKEY123456');
    for (const text of ['error at /v3/SLASHY/KEY123456 denied', 'key SLASHY/KEY123456', 'path /v3/SLASHY%2FKEY123456', 'key SLASHY%2fKEY123456 x', 'key SLASHY\\/KEY123456']) {
      const clean = redact(text);
      expect(clean, text).to.not.match(/SLASHY|KEY123456/i);
      expect(clean, text).to.include('<redacted>');
    }
  });
});

describe('the warning for what may be the key but is too short to remove from text', function () {
  it('names its place and length, never its value, before the run starts; a key found whole (long enough) gets no warning', async () => {
    const short = await cli(['conformance', '--url', 'http://127.0.0.1:1/ethereum-mainnet-archive/rpQ7x', '--timeout', '500']);
    expect(short.code).to.equal(2);
    expect(short.err.split('\n')[0]).to.match(/^rpc-certify: WARNING: path segment 2 \(5 characters\) of the URL may hold the API key: hidden wherever the endpoint is shown, but under 8 characters, so not removed from other text/);
    expect(short.err + short.out).to.not.include('rpQ7x');
    const whole = await cli(['conformance', '--url', 'http://127.0.0.1:1/ethereum-mainnet-archive/abc123xyz9', '--timeout', '500']);
    expect(whole.code).to.equal(2);
    expect(whole.err).to.not.include('WARNING');
    expect(whole.err + whole.out).to.not.include('abc123xyz9');
  });
});

describe('key-echo matrix: no form of the API key reaches any output', function () {
  let devnet: Devnet;
  let server: Server;
  let current = '';
  let port = 0;
  before(async () => {
    devnet = await startDevnet();
    server = await echoingEndpoint(devnet.url, () => current);
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server?.closeAllConnections();
    server?.close();
    await devnet?.stop();
  });

  it('a load run (real k6) with a URL-special, non-ASCII key: no spelling of it in any output', async () => {
    const key = 'k{é}y"<ключ>-0123456789';
    current = key;
    const out = await mkdtemp(join(tmpdir(), 'rc-keys-load-'));
    const base = `http://127.0.0.1:${port}`;
    const run = await cli(['load', '--url', `${base}/v3/${key}`, '--profile', 'smoke', '--duration', '3s', '--methods', 'eth_getBlockByHash,eth_getTransactionReceipt', '--out', out]);
    expect(run.code, run.err).to.be.oneOf([0, 1]);
    const names = await readdir(out);
    for (const f of ['load.json', 'load.html', 'load.junit.xml', 'load.corpus.json']) expect(names).to.include(f);
    const outputs: Record<string, string> = { stdout: run.out, stderr: run.err, ...Object.fromEntries(await Promise.all(names.map(async (f) => [f, await readFile(join(out, f), 'utf8')] as const))) };
    JSON.parse(outputs['load.json']!);
    // The echoes did reach the load reports (sampling's findings), redacted.
    expect(outputs['load.json']).to.match(/@@[^@]*<redacted>[^@]*@@/);
    const sentPath = new URL(`${base}/v3/${key}`).pathname;
    for (const form of spellings(key, sentPath)) {
      for (const [file, text] of Object.entries(outputs)) expect(text.includes(form), `${file} holds ${JSON.stringify(form)}`).to.equal(false);
    }
  });

  for (const key of ['true', '0x']) {
    it(`a load run (real k6) with the short key ${JSON.stringify(key)}: warned at the start, every report file still valid JSON and schema-valid`, async () => {
      current = key;
      const out = await mkdtemp(join(tmpdir(), 'rc-keys-load-short-'));
      const run = await cli(['load', '--url', `http://127.0.0.1:${port}/v3/${key}`, '--profile', 'smoke', '--duration', '2s', '--methods', 'eth_getBlockByHash,eth_getTransactionReceipt', '--out', out]);
      expect(run.code, run.err).to.be.oneOf([0, 1]);
      expect(run.err.split('\n')[0]).to.match(new RegExp(`^rpc-certify: WARNING: the API key is only ${key.length} characters long \\(under 8\\): every occurrence of it is redacted`));
      const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
      assertReport(report);
      expect(report.endpoint).to.match(/\/v3\/<redacted>$/);
      // The echoes reached the report (sampling's findings), and were redacted inside their values.
      expect(JSON.stringify(report)).to.match(/@@[^@"]*<redacted>[^@"]*@@/);
      JSON.parse(await readFile(join(out, 'load.corpus.json'), 'utf8'));
    });
  }

  for (const { name, key, via, prefix = '/v3/', shown = `${prefix}<redacted>` } of KEYS) {
    it(`${name}: ${JSON.stringify(key.length > 20 ? `${key.slice(0, 12)}…` : key)} (${via === 'url' ? '--url' : '--api-key'})`, async () => {
      current = key;
      const out = await mkdtemp(join(tmpdir(), 'rc-keys-'));
      const base = `http://127.0.0.1:${port}`;
      const endpoint = via === 'url' ? ['--url', `${base}${prefix}${key}`] : ['--network', 'local-devnet', '--base-url', base, '--api-key', key];
      const run = await cli(['conformance', ...endpoint, '--out', out, '--timeout', '5000']);
      expect(run.code, run.err).to.be.oneOf([0, 1]);
      // A key short enough to occur by chance in evidence is named as such before the run starts (not the key itself).
      if ([...key].length < 8) expect(run.err.split('\n')[0]).to.match(new RegExp(`^rpc-certify: WARNING: the API key is only ${[...key].length} characters? long \\(under 8\\)`));
      else expect(run.err).to.not.include('WARNING: the API key');

      const files = Object.fromEntries(await Promise.all((await readdir(out)).map(async (f) => [f, await readFile(join(out, f), 'utf8')] as const)));
      expect(Object.keys(files).sort()).to.deep.equal(['conformance.html', 'conformance.json', 'conformance.junit.xml', 'targets.lock.json']);
      const report = JSON.parse(files['conformance.json']!) as { run: { endpoint: string }; checks: unknown[]; summary: { verdict: string } };
      // (A key of one character is also removed from the host: the garbling the warning names.)
      if (key.length >= 8) expect(report.run.endpoint).to.equal(`${base}${shown}`);
      else expect(report.run.endpoint).to.match(new RegExp(`${shown}$`));
      expect(reportFaults(report), 'the report is whole').to.deep.equal([]);
      expect(report.checks.length).to.be.above(100);
      JSON.parse(files['targets.lock.json']!);

      const outputs: Record<string, string> = { stdout: run.out, stderr: run.err, ...files };
      const sentPath = new URL(`${base}${prefix}${via === 'url' ? key : encodeURIComponent(key)}`).pathname;
      // Every echo that made it into an output holds the redaction mark and nothing else.
      for (const [file, text] of Object.entries(outputs)) {
        for (const m of text.matchAll(/@@([^@\n]*?)@@/g)) {
          const echoed = m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>');
          expect(echoed.replace(/\/v[0-9]+\/|<redacted>|\s|^0x|\//gi, ''), `${file}: an echo at ${m.index}: ${echoed}`).to.equal('');
          expect(echoed).to.include('<redacted>');
        }
      }
      // The echoes did reach the reports (so this test can fail): results, messages, error data.
      for (const file of ['conformance.json', 'conformance.html', 'conformance.junit.xml']) expect(outputs[file]!.match(/@@/g)?.length ?? 0, file).to.be.above(10);
      // A key long enough not to occur by chance (`true` occurs in the harness's own requests) must not occur at all, in any spelling.
      if (key.length >= 8) {
        for (const form of spellings(key, sentPath)) {
          for (const [file, text] of Object.entries(outputs)) expect(text.includes(form), `${file} holds ${JSON.stringify(form)}`).to.equal(false);
        }
      }
    });
  }
});
