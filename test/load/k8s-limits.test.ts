// `rpc-certify k8s` within Kubernetes' limits (issue 26): for the largest corpus a profile can produce, every
// object written stays under 1 MiB, each corpus part under the 256 KiB a client-side apply's annotation
// allows, the parts read back as the corpus, the TestRun is valid against the vendored k6-operator CRD and
// names the runner image the repository's Dockerfile builds from the k6 the code pins. No k6, no cluster.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { METHODS } from '../../core/methods.ts';
import { K6_EXTENSION, K6_MIN_GO, K6_MODULE, K6_RUNNER_IMAGE, K6_VERSION, k6BuildFiles } from '../../core/node/tools/k6.ts';
import { ENTRIES_PER_METHOD } from '../../load/plan/sample.ts';
import { K8S_LIMITS, k8sObjects, type K8sObject, objectBytes, oversized, RUNNER_DOCKERFILE, splitEncoded, writeK8s } from '../../load/run/k8s.ts';
import { type Corpus, type CorpusEntry, corpusPartPath } from '../../load/shared/corpus.ts';
import { cli } from '../support/cli.ts';
import { testRunValidator } from '../support/testrun-schema.ts';

/** The most a transaction's input holds in the public mempool (geth's txMaxSize, 128 KiB): the largest replay an eth_estimateGas entry carries. */
const MAX_TX_INPUT = 128 * 1024;
const hex = (bytes: number, fill: string) => `0x${fill.repeat(bytes * 2)}`;
const HASH = hex(32, 'a');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every method at the corpus' per-method cap, each entry as large as sampling makes one (every optional field, the longest params). */
function largestCorpus(): Corpus {
  const entry = (params: unknown[]): CorpusEntry => ({ params, note: 'replay of tx type 0x4 "quoted"', kind: 'hit', answer: hex(32, 'b').slice(2), bounds: `n:0xffffffffff:0xffff@${HASH}`, reply: hex(32, 'c').slice(2), settled: true });
  const params: Record<(typeof METHODS)[number], unknown[]> = {
    eth_estimateGas: [{ from: hex(20, 'd'), to: hex(20, 'e'), value: '0xffffffffffffffffffff', data: hex(MAX_TX_INPUT, 'f'), gas: '0xffffffff' }, '0xffffffffff'],
    eth_getBlockByHash: [HASH, true],
    eth_getUncleByBlockNumberAndIndex: ['0xffffffffff', '0xff'],
    eth_getUncleByBlockHashAndIndex: [HASH, '0xff'],
    eth_getTransactionByBlockNumberAndIndex: ['0xffffffffff', '0xffff'],
    eth_getTransactionByHash: [HASH],
    eth_getTransactionReceipt: [HASH],
    eth_getBlockReceipts: ['0xffffffffff'],
  };
  const entries = Object.fromEntries(METHODS.map((m) => [m, Array.from({ length: ENTRIES_PER_METHOD }, () => entry(params[m]))])) as Corpus['entries'];
  const sampling = Object.fromEntries(METHODS.map((m) => [m, { status: 'served', tried: { hit: 48 }, correct: { hit: 48 }, rejected: {}, findings: [] }]));
  return { version: 3, seed: 1, missShare: 0.1, chainId: '0x1', head: '0xffffffffff', finalBlock: '0xfffffffff0', blocksSampled: 32, entries, sampling };
}

describe('k8s: the manifests fit Kubernetes and k6-operator', function () {
  // A 53 MB corpus written, parsed back and checked per profile: ~20 s on a busy machine.
  this.timeout(240_000);
  let dir: string;
  let corpusFile: string;
  let corpusText: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8s-limits-'));
    corpusFile = join(dir, 'largest.json');
    corpusText = JSON.stringify(largestCorpus());
    await writeFile(corpusFile, corpusText);
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the runner image is built by load/k8s/Dockerfile as the local build does: the same go.mod and main.go (k6 pinned, k6ext linked in), with a Go new enough', async () => {
    const dockerfile = await readFile(RUNNER_DOCKERFILE, 'utf8');
    const written = (file: string) => new RegExp(`^COPY <<EOF ${file}\\n([\\s\\S]*?\\n)EOF$`, 'm').exec(dockerfile)?.[1];
    const folder = /^COPY \. (\S+)$/m.exec(dockerfile)?.[1] ?? '';
    const files = k6BuildFiles(folder);
    expect(written('go.mod'), 'go.mod').to.equal(files['go.mod']).and.to.include(`require ${K6_MODULE} ${K6_VERSION}\n`);
    expect(written('main.go'), 'main.go').to.equal(files['main.go']);
    expect(dockerfile).to.match(/^RUN cp \/src\/k6ext\/go\.sum go\.sum && CGO_ENABLED=0 go build -mod=mod -o \/out\/k6 \. && \/out\/k6 version \| grep -F 'k6\/x\/rpccertify'$/m);
    const [major = 0, minor = 0] = (/^ARG GO_VERSION=(\S+)$/m.exec(dockerfile)?.[1] ?? '').split('.').map(Number);
    expect(major * 1000 + minor, `Go ${major}.${minor} builds k6 ${K6_VERSION}`).to.be.at.least(K6_MIN_GO[0] * 1000 + K6_MIN_GO[1]);
    // The operator runs `k6 run` in the runners and `sh -c` in its initializer: k6 on PATH in an image with a shell.
    expect(dockerfile).to.match(/^COPY --from=build \S+ \/usr\/bin\/k6$/m).and.to.match(/^FROM alpine:/m);
    expect(K6_RUNNER_IMAGE.endsWith(`:${K6_VERSION}`), K6_RUNNER_IMAGE).to.equal(true);
  });

  it('splits text into parts within a budget of JSON-encoded bytes, never inside a character, that join back to it', () => {
    const text = `{"a":"${'x'.repeat(50)}\\"q\\\\ é€😀\n\t\u0001${'😀'.repeat(20)}"}`;
    for (const budget of [8, 13, 64, 1000]) {
      const parts = splitEncoded(text, budget);
      expect(parts.join(''), `budget ${budget}`).to.equal(text);
      for (const p of parts) {
        expect(Buffer.byteLength(JSON.stringify(p)), JSON.stringify(p)).to.be.at.most(budget);
        expect(LONE_SURROGATE.test(p), JSON.stringify(p)).to.equal(false);
      }
      if (budget < 100) expect(parts.length, `budget ${budget}`).to.be.greaterThan(1);
    }
    expect(splitEncoded('', 10)).to.deep.equal(['']);
  });

  it('the command line: --runner-image names the runners\' image, the default is the local name of the k6 pinned', async () => {
    const small = { ...largestCorpus(), entries: { ...largestCorpus().entries, eth_estimateGas: [] } };
    const file = join(dir, 'small.json');
    await writeFile(file, JSON.stringify(small));
    const imageOf = async (args: string[]) => {
      const out = join(dir, `cli-${args.length}`);
      const r = await cli(['k8s', '--corpus', file, '--methods', 'eth_getBlockByHash', '--parallelism', '2', '--out', out, ...args]);
      expect(r.code, r.err).to.equal(0);
      const testRun = parseAllDocuments(await readFile(join(out, 'k8s.yaml'), 'utf8')).map((d) => d.toJSON() as { kind: string; spec?: { runner: { image: string } } }).find((d) => d.kind === 'TestRun');
      return { image: testRun?.spec?.runner.image, printed: r.out + r.err };
    };
    const named = await imageOf(['--runner-image', 'registry.example/k6:1']);
    expect(named.image).to.equal('registry.example/k6:1');
    expect(named.printed).to.include(`docker build -t registry.example/k6:1 -f ${RUNNER_DOCKERFILE} ${K6_EXTENSION.dir} `).and.to.include('docker push registry.example/k6:1');
    const byDefault = await imageOf([]);
    expect(byDefault.image).to.equal(K6_RUNNER_IMAGE);
    expect(byDefault.printed).to.include(`docker build -t ${K6_RUNNER_IMAGE} -f ${RUNNER_DOCKERFILE} ${K6_EXTENSION.dir}\n`).and.to.include('--runner-image');
  });

  it('refuses an object Kubernetes would refuse: a script of 1 MiB (the one object not split), named with its size', () => {
    const objects = (script: string) => k8sObjects({ name: 'big', image: 'i', parallelism: 1, script, corpus: '{}' });
    expect(oversized(objects('x'.repeat(K8S_LIMITS.objectBytes)))).to.match(/^the ConfigMap big-script takes 1048\d{3} bytes, over Kubernetes' 1 MiB for an object$/);
    expect(oversized(objects('x'.repeat(K8S_LIMITS.objectBytes - 1000)))).to.equal(undefined);
  });

  for (const profile of ['gate', 'soak'] as const) {
    it(`${profile}: with the largest corpus, each object is < 1 MiB, each corpus part < 256 KiB, the parts read back as the corpus, the TestRun valid`, async () => {
      const out = join(dir, profile);
      const written = await writeK8s({ profile, corpus: corpusFile, parallelism: 4, out, runnerImage: 'registry.example/rpc-certify-k6:v2.2.0', log: () => undefined });
      expect(written.exitCode, written.summary).to.equal(0);
      // Every `kubectl apply` printed is server-side: no step copies an object into the 256 KiB annotation.
      const applies = written.summary.split('\n').filter((l) => /kubectl\b.*\bapply\b/.test(l));
      expect(applies, written.summary).to.have.length(1);
      expect(applies[0]).to.match(/kubectl apply --server-side -f /);
      expect(written.summary).to.match(/docker build -t registry\.example\/rpc-certify-k6:v2\.2\.0 -f \S+load\/k8s\/Dockerfile \S+k6ext && docker push registry\.example\/rpc-certify-k6:v2\.2\.0/);

      const docs = parseAllDocuments(await readFile(join(out, 'k8s.yaml'), 'utf8'));
      expect(docs.flatMap((d) => d.errors)).to.deep.equal([]);
      const objects = docs.map((d) => d.toJSON() as K8sObject & { data?: Record<string, string>; spec?: { runner: { env: Array<{ name: string; value?: string }>; volumes: Array<{ projected: { sources: Array<{ configMap: { name: string } }> } }> } } });
      const sizes = objects.map((o) => ({ name: o.metadata.name, bytes: objectBytes(o) }));
      for (const s of sizes) expect(s.bytes, s.name).to.be.below(K8S_LIMITS.objectBytes);
      const parts = objects.filter((o) => o.metadata.name.includes('-corpus-'));
      for (const p of parts) expect(objectBytes(p), p.metadata.name).to.be.below(K8S_LIMITS.annotationBytes);
      expect(parts.length, 'a corpus of this size takes several parts').to.be.greaterThan(1);

      const testRun = objects.find((o) => o.kind === 'TestRun');
      const { validate } = testRunValidator();
      expect(validate(testRun), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
      const runner = testRun!.spec!.runner;
      expect(runner.env).to.deep.include({ name: 'RPC_CERTIFY_CORPUS_PARTS', value: String(parts.length) });
      // The image holds the extension: the pods recognise answers in Go, as a local run does.
      expect(runner.env).to.deep.include({ name: 'RPC_CERTIFY_RECOGNITION', value: 'go' });
      expect(runner.volumes[0]?.projected.sources.map((s) => s.configMap.name)).to.deep.equal(parts.map((p) => p.metadata.name));
      // What the script reads in the pods (scenario.ts): part i at corpus.json.i, in order.
      const file = 'corpus.json';
      const text = parts.map((p, i) => p.data?.[corpusPartPath(file, i)] ?? `(no ${corpusPartPath(file, i)} in ${p.metadata.name})`).join('');
      expect(text.length).to.equal(corpusText.length);
      expect(text === corpusText, 'the parts joined are the corpus').to.equal(true);
    });
  }
});
