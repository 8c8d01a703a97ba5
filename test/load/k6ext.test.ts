// One recognition rule on both sides: the Go extension (k6ext/, k6/x/rpccertify) must mark and hash every answer as
// core/reply.ts's markedText does, and recognise exactly the answers the JavaScript path recognises. Vectors come
// from the TypeScript rule (hand-written hostile spellings, non-ASCII bodies, and the hostile-answer fuzz); `go test`
// checks the Go package against them, and the built k6 runs both paths side by side on them through Sobek's strings.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { replyFingerprint, sha256Hex } from '../../core/node/fingerprint.ts';
import { GO_RECOGNITION, markedText } from '../../core/reply.ts';
import { K6_EXTENSION } from '../../core/node/tools/k6.ts';
import { createRng } from '../../load/shared/rng.ts';
import { GO_PLAN_COMPLETE, GO_PLAN_KEYS } from '../../load/shared/go-plan.ts';
import { envelope, randomAnswer } from '../support/hostile-answers.ts';
import { requireTool, underCi } from '../support/tools.ts';

const run = promisify(execFile);
const REPLY_TS = fileURLToPath(new URL('../../core/reply.ts', import.meta.url));

/** What reply_test.go reads: marked is sha256 hex of markedText(body, id) or null; recognised, whether it equals reply. */
interface Vector {
  body: string;
  id: number;
  marked: string | null;
  reply: string;
  recognised: boolean;
}

function vector(body: string, id: number, reply: string): Vector {
  const text = markedText(body, id);
  const marked = text === undefined ? null : sha256Hex(text);
  return { body, id, marked, reply, recognised: marked === reply };
}

/** Bodies as sampled with id 5 and answered under load with another id: each spelling, each alphabet. */
function handWritten(): Vector[] {
  const result = '{"hash":"0xab","nonce":"0x1"}';
  const shapes: Array<(id: number) => string> = [
    (id) => envelope(id, { result: JSON.parse(result) as unknown }),
    (id) => `{"jsonrpc":"2.0","id": ${id},"result":${result},"x":{"id":${id}}}`,
    (id) => `{"jsonrpc":"2.0","\\u0069d":${id},"result":${result},"x":{"id":${id}}}`,
    (id) => `{"jsonrpc":"2.0","id":${id},"result":${result},"id" :${id}}`,
    (id) => `{"jsonrpc":"2.0","id": ${id},"result":{"hash":"0xab","id":${id}}}`,
    (id) => `{"meta":{"id":${id}},"jsonrpc":"2.0","id":${id},"result":${result}}`,
    (id) => `{"jsonrpc":"2.0","id":${id}5,"result":${result}}`,
    (id) => `{"jsonrpc":"2.0","id":\0${id},"result":${result}}`,
    (id) => `{"jsonrpc":"2.0","id":${id}.0,"result":${result}}`,
    // Non-ASCII before and after the id: UTF-16 in JavaScript, UTF-8 in Go; the mark must fall on the same character.
    (id) => `{"jsonrpc":"2.0","result":{"name":"é日本😀\\ud83d"},"id":${id}}`,
    (id) => `{"note":"😀😀","jsonrpc":"2.0","id":${id},"result":"\uFFFD€ñ"}`,
    (id) => `{"jsonrpc":"2.0","id":${id},"result":"${'ü'.repeat(700)}"}`,
    () => '',
    () => 'not json',
  ];
  const ids = [1, 5, 7, 10, 77, 123_456, 2 ** 31, 2 ** 53 - 1];
  return shapes.flatMap((shape) => {
    const reply = replyFingerprint(shape(5), 5) ?? sha256Hex(markedText(shape(5), 5) ?? 'none');
    return ids.map((id) => vector(shape(id), id, reply));
  });
}

/** The hostile-answer fuzz of test/load/reply.test.ts: answers that mostly repeat what sampling saw. */
function fuzzed(count: number): Vector[] {
  const rng = createRng(0x6e0);
  const answers = Array.from({ length: 64 }, () => randomAnswer(rng));
  const sampled = answers.map((answer, k) => {
    const body = answer(k + 1).body ?? '';
    return replyFingerprint(body, k + 1) ?? sha256Hex(markedText(body, k + 1) ?? body);
  });
  return Array.from({ length: count }, (_, n) => {
    const k = rng.int(answers.length);
    const id = 1000 + n;
    return vector((answers[k] as (id: number) => { body: string | null })(id).body ?? '', id, sampled[k] as string);
  });
}

describe('load: answers recognised in Go (k6ext/) exactly as in TypeScript (core/reply.ts)', function () {
  this.timeout(240_000);
  let dir: string;
  let file: string;
  let vectors: Vector[];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rc-k6ext-'));
    file = join(dir, 'vectors.json');
    vectors = [...handWritten(), ...fuzzed(4000)];
    await writeFile(file, JSON.stringify(vectors));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('the vectors exercise both outcomes: answers recognised, answers marked but not recognised, answers not marked', () => {
    expect(vectors.filter((v) => v.recognised).length).to.be.above(500);
    expect(vectors.filter((v) => v.marked !== null && !v.recognised).length).to.be.above(500);
    expect(vectors.filter((v) => v.marked === null).length).to.be.above(100);
    expect(vectors.filter((v) => /[^\x00-\x7f]/.test(v.body) && v.recognised).length, 'non-ASCII answers recognised').to.be.above(10);
  });

  it('go test: k6ext/reply marks, hashes and recognises every vector as core/reply.ts does', async function () {
    const go = await run('go', ['version']).catch(() => undefined);
    if (!go) {
      if (underCi()) throw new Error('Go is not on PATH: under CI=true the Go side of the recognition rule must be tested');
      this.skip();
    }
    const out = await run('go', ['test', '-count=1', '-v', '-run', 'TestAgreesWithTypeScript', './reply/'], { cwd: K6_EXTENSION.dir, env: { ...process.env, RPC_CERTIFY_REPLY_VECTORS: file }, maxBuffer: 16 << 20 }).catch(
      (e: { stdout?: string; stderr?: string }) => expect.fail(`go test failed:\n${(e.stdout ?? '').slice(0, 4000)}${e.stderr ?? ''}`),
    );
    expect(out.stdout, 'the vector test ran, not skipped').to.match(/--- PASS: TestAgreesWithTypeScript/);
  });

  /** Runs `source` (bundled) in the project's k6 with the extension, and reads what its handleSummary wrote to $OUT. */
  async function inK6<T>(ctx: Mocha.Context, name: string, source: string, env: Record<string, string> = {}): Promise<T> {
    const k6 = await requireTool(ctx, 'k6');
    if (!k6.extension) {
      if (underCi()) throw new Error(`${k6.path} lacks ${GO_RECOGNITION.name}: npm run setup builds the project's k6 with it`);
      ctx.skip();
    }
    const script = join(dir, `${name}.js`);
    const result = join(dir, `${name}.json`);
    await build({ stdin: { contents: source, resolveDir: dir, loader: 'ts' }, outfile: script, bundle: true, format: 'esm', platform: 'neutral', external: ['k6', 'k6/*'], logLevel: 'silent' });
    await run(k6.path, ['run', '--quiet', '--no-usage-report', script], { env: { ...process.env, ...env, OUT: result }, maxBuffer: 16 << 20 });
    return JSON.parse(await readFile(result, 'utf8')) as T;
  }

  it('through the built k6: k6/x/rpccertify and the JavaScript path (markedText + k6/crypto) agree on every vector', async function () {
    const outcome = await inK6<{ rule: string; checked: number; recognised: number; disagreements: string[] }>(this, 'agree', agreementScript(), { VECTORS: file });
    expect(outcome.rule, 'the rule the build reports').to.equal(GO_RECOGNITION.rule);
    expect(outcome.disagreements).to.deep.equal([]);
    expect(outcome.checked).to.equal(vectors.length);
    expect(outcome.recognised).to.equal(vectors.filter((v) => v.recognised).length);
  });

  it("through the built k6: Go's iteration (k6ext/send.go) picks the method, entry and validated share as the scenario does, and buckets latencies as histogram.ts", async function () {
    const outcome = await inK6<{ iterations: number; validated: number; judgedInGo: number; latencies: number; disagreements: string[] }>(this, 'rules', rulesScript());
    expect(outcome.disagreements).to.deep.equal([]);
    expect(outcome.iterations).to.equal(2 * 5000);
    // Both outcomes of each rule were met: some iterations validated in full, some entries left to the JavaScript.
    expect(outcome.validated).to.be.within(600, 800);
    expect(outcome.judgedInGo).to.be.within(1000, 9000);
    expect(outcome.latencies).to.be.above(20_000);
  });
});

const RULE_FILES = { segments: '../../load/shared/segments.ts', histogram: '../../load/shared/histogram.ts' };

/** Go's target(subject, i) and bucketOf(ms) beside the TypeScript rules they follow, on a plan with a mix, stripes of three
 * lanes (an instance of three) and entries only the JavaScript judges. */
function rulesScript(): string {
  const at = (file: string) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
  return `
import { entryTurn, stripeEntries, validatesTurn } from ${at(RULE_FILES.segments)};
import { bucketLowerBounds, bucketOf, BUCKETS, GROUP_BUCKETS, HISTOGRAM_GROUPS } from ${at(RULE_FILES.histogram)};
const go = require(${JSON.stringify(GO_RECOGNITION.name)});
const share = 0.07;
const entries = (n, tag) => Array.from({ length: n }, (_, k) => ({ params: '["' + tag + (k % 4) + '"]', miss: k % 3 === 0, reply: k % 5 === 0 ? '' : 'ab'.repeat(32) }));
const methods = { eth_getBlockByHash: entries(11, 'b'), eth_getTransactionByHash: entries(7, 't') };
const stripes = Object.fromEntries(Object.entries(methods).map(([m, e]) => [m, stripeEntries(e.length, (k) => e[k], 3)]));
const mix = ['eth_getBlockByHash', 'eth_getTransactionByHash', 'eth_getTransactionByHash', 'eth_getBlockByHash', 'eth_getTransactionByHash'];
const subjects = ['eth_getBlockByHash', 'mix'];
const names = (s) => ({ histogram: Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => 'h_' + s + '_' + g), bounds: 'b_' + s, calls: { ok_null: 'n_' + s }, validated: 'v_' + s, parsed: 'p_' + s });
go.configure(JSON.stringify({
  url: 'http://127.0.0.1:9/', timeout: '1s', validateShare: share, mix, inGo: 'in_go', lower: bucketLowerBounds(), groupBuckets: GROUP_BUCKETS, maxCodeTags: 16, otherCode: 'other',
  methods: Object.fromEntries(Object.entries(methods).map(([m, e]) => [m, { entries: e.map((x) => [x.params, x.reply, 0]), stripes: stripes[m] }])),
  subjects: Object.fromEntries(subjects.map((s) => [s, names(s)])),
}));
export const options = { vus: 1, iterations: 1 };
export function setup() {
  const disagreements = [];
  let iterations = 0, validated = 0, judgedInGo = 0, latencies = 0;
  for (const s of subjects) {
    for (let i = 0; i < 5000; i++) {
      const method = s === 'mix' ? mix[i % mix.length] : s;
      const turn = entryTurn(stripes[method], i, s === 'mix' ? mix.length : 0);
      const index = turn.index;
      const validates = validatesTurn(turn, share);
      const [goMethod, goIndex, goValidates, goJudges] = go.target(s, i);
      const judges = methods[method][index].reply !== '';
      if (goMethod !== method || goIndex !== index || goValidates !== validates || goJudges !== judges) disagreements.push(s + ' ' + i + ': ' + JSON.stringify({ method, index, validates, judges, go: [goMethod, goIndex, goValidates, goJudges] }));
      iterations++;
      if (validates) validated++;
      if (judges && !validates) judgedInGo++;
    }
  }
  const lower = bucketLowerBounds();
  const probes = [0, -1, NaN, Infinity, 1e-9, 0.01, 60000, 1e9];
  for (let b = 1; b < BUCKETS; b++) probes.push(lower[b], lower[b] * (1 - 2e-16), lower[b] * (1 + 2e-16));
  for (let k = 0; k < 20000; k++) probes.push(Math.exp(Math.sin(k) * 12 + 2));
  for (const ms of probes) {
    if (go.bucketOf(ms) !== bucketOf(ms)) disagreements.push('bucket of ' + ms + ' ms: ' + bucketOf(ms) + ' in TypeScript, ' + go.bucketOf(ms) + ' in Go');
    latencies++;
  }
  return { iterations, validated, judgedInGo, latencies, disagreements: disagreements.slice(0, 10) };
}
export default function () {}
export function handleSummary(data) {
  return { [__ENV.OUT]: JSON.stringify(data.setup_data) };
}
`;
}

/** Both of the scenario's paths on each vector, and each against what Node computed. */
function agreementScript(): string {
  return `
import crypto from 'k6/crypto';
import { markedText } from ${JSON.stringify(REPLY_TS)};
const go = require(${JSON.stringify(GO_RECOGNITION.name)});
const vectors = JSON.parse(open(__ENV.VECTORS));
export const options = { vus: 1, iterations: 1 };
export function setup() {
  const disagreements = [];
  let recognised = 0;
  vectors.forEach((v, i) => {
    const text = markedText(v.body, v.id);
    const js = text === undefined ? null : crypto.sha256(text, 'hex');
    const sum = go.markedSum(v.body, v.id);
    const goSum = sum === undefined ? null : sum;
    const jsSeen = js !== null && js === v.reply;
    const goSeen = go.recognised(v.body, v.id, v.reply);
    if (js !== v.marked || goSum !== v.marked || jsSeen !== v.recognised || goSeen !== v.recognised) {
      disagreements.push(i + ': ' + JSON.stringify({ id: v.id, body: v.body.slice(0, 80), node: v.marked, js, go: goSum, jsSeen, goSeen }));
    }
    if (goSeen) recognised++;
  });
  return { rule: go.rule, checked: vectors.length, recognised, disagreements: disagreements.slice(0, 10) };
}
export default function () {}
export function handleSummary(data) {
  return { [__ENV.OUT]: JSON.stringify(data.setup_data) };
}
`;
}

/** The json tags of k6ext/send.go's planText, by level: the plan's own fields, and the fields of its nested structs by the tag of the field that holds them. */
function goPlanTags(source: string): { plan: string[]; nested: Record<string, string[]> } {
  const start = source.indexOf('type planText struct {');
  const lines = source.slice(start).split('\n').slice(1);
  const plan: string[] = [];
  const nested: Record<string, string[]> = {};
  let inner: string[] | undefined;
  for (const line of lines) {
    if (/^}/.test(line)) break;
    const tag = /`json:"([^",]+)/.exec(line)?.[1];
    if (/struct \{\s*$/.test(line)) inner = [];
    else if (/^\t}/.test(line) && inner && tag) {
      plan.push(tag);
      nested[tag] = inner;
      inner = undefined;
    } else if (tag) (inner ?? plan).push(tag);
  }
  return { plan, nested };
}

describe('the Go extension\'s plan: one contract (load/shared/go-plan.ts) for the scenario that writes it and the Go that reads it', () => {
  it('k6ext/send.go tags exactly the keys GoPlan declares, at every level', async () => {
    expect(GO_PLAN_COMPLETE).to.equal(true);
    const tags = goPlanTags(await readFile(join(K6_EXTENSION.dir, 'send.go'), 'utf8'));
    expect(tags.plan, 'planText').to.have.members([...GO_PLAN_KEYS.plan]);
    expect(tags.nested['methods'], 'planText.Methods').to.have.members([...GO_PLAN_KEYS.method]);
    expect(tags.nested['subjects'], 'planText.Subjects').to.have.members([...GO_PLAN_KEYS.subject]);
  });

  it('the reader catches a field on one side only', () => {
    const go = `type planText struct {\n\tURL string \`json:"url"\`\n\tExtra int \`json:"extra"\`\n\tMethods map[string]struct {\n\t\tEntries int \`json:"entries"\`\n\t} \`json:"methods"\`\n}\n`;
    expect(goPlanTags(go)).to.deep.equal({ plan: ['url', 'extra', 'methods'], nested: { methods: ['entries'] } });
  });
});
