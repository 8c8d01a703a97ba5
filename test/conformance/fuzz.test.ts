// Seeded fuzzing: the validators and the load classifier never throw, whatever JSON they get, and the
// suite gives every check a verdict against an endpoint whose answers are mutated at random.
import { expect } from 'chai';
import { validateShape, shapeSchemas, type ShapeName } from '../../core/schemas.ts';
import { classify } from '../../load/shared/classify.ts';
import { createRng, type Rng } from '../../load/shared/rng.ts';
import type { Devnet } from '../../devnet/index.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy, RpcResponse } from '../support/fault-proxy.ts';
import { RUN_OF_ONE_CHECKS } from '../support/run-of-one.ts';

const SEED = Number(process.env['RPC_CERTIFY_FUZZ_SEED'] ?? 20261122);

function randomValue(rng: Rng, depth = 0): unknown {
  const kinds = depth > 4 ? 6 : 9;
  switch (rng.int(kinds)) {
    case 0: return null;
    case 1: return rng.next() < 0.5;
    case 2: return rng.pick([0, -1, 1.5, 2 ** 53, Number.MAX_VALUE, -0]);
    case 3: return rng.hex(rng.pick([0, 1, 8, 20, 31, 32, 33, 256]));
    case 4: return rng.pick(['', '0x', '0X1', '0x0', '0x00', 'latest', 'pending', '<script>', '\u0000', 'é'.repeat(rng.int(50))]);
    case 5: return rng.hex(rng.int(40)).toUpperCase();
    case 6: return Array.from({ length: rng.int(5) }, () => randomValue(rng, depth + 1));
    default: {
      const keys = ['hash', 'number', 'transactions', 'logs', 'status', 'root', 'result', 'error', 'id', 'jsonrpc', 'type', 'to', '__proto__', 'constructor', rng.hex(2)];
      return Object.fromEntries(Array.from({ length: rng.int(8) }, () => [rng.pick(keys), randomValue(rng, depth + 1)]));
    }
  }
}

/** A copy of `value` with one node replaced, removed or retyped. */
function mutate(rng: Rng, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return rng.next() < 0.5 ? randomValue(rng) : value;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return randomValue(rng);
  const key = rng.pick(keys);
  const target = copy as Record<string, unknown>;
  const roll = rng.int(4);
  if (roll === 0) delete target[key];
  else if (roll === 1) target[key] = randomValue(rng);
  else target[key] = mutate(rng, target[key]);
  return copy;
}

describe('fuzzing (seed ' + SEED + ')', function () {
  it('the shape validators give a verdict for 20,000 random and mutated values, never an exception', () => {
    const rng = createRng(SEED);
    const names = Object.keys(shapeSchemas) as ShapeName[];
    let rejected = 0;
    for (let i = 0; i < 20_000; i++) {
      const value = i % 2 ? randomValue(rng) : mutate(rng, mutate(rng, { jsonrpc: '2.0', id: 1, result: randomValue(rng) }));
      const faults = validateShape(rng.pick(names), value);
      expect(faults).to.be.an('array');
      if (faults.length) rejected++;
    }
    expect(rejected, 'random values are mostly rejected').to.be.above(15_000);
  });

  it('the load classifier gives a class for 20,000 random bodies, never an exception', () => {
    const rng = createRng(SEED + 1);
    for (let i = 0; i < 20_000; i++) {
      const body = rng.next() < 0.3 ? rng.hex(rng.int(30)) : JSON.stringify(randomValue(rng));
      const truncated = rng.next() < 0.2 ? body.slice(0, rng.int(body.length + 1)) : body;
      const c = classify({ status: rng.pick([0, 200, 200, 200, 429, 500]), body: rng.next() < 0.05 ? null : truncated }, { expect: rng.pick(['value', 'null', 'error'] as const) });
      expect(c.cls).to.be.a('string');
    }
  });

  describe('against an endpoint that mutates its answers', function () {
    let devnet: Devnet;
    let proxy: FaultProxy;
    faultyDevnet((d, p) => ((devnet = d), (proxy = p)));

    for (let round = 0; round < 3; round++) {
      it(`round ${round}: every check ends in a verdict and the run completes`, async () => {
        const clean = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getBlockByHash'] });
        const rng = createRng(SEED + 100 + round);
        // Preflight answers stay intact so the run starts; the checks' answers are mutated half of the time.
        proxy.fault = { name: 'fuzz', kills: [], rewrite: (req, res) => (req.method.startsWith('eth_get') && req.method !== 'eth_getBlockByNumber' && rng.next() < 0.5 ? (mutate(rng, res) as RpcResponse) : res) };
        try {
          const run = await runConformance({ suites: allSuites, url: proxy.url, targetsFile: undefined, fixtures: [{ targets: clean.targets ?? {}, source: 'fixture' }] });
          // Every check but the reference and quorum ones, which are not on a run of one endpoint without --reference-url.
          expect(run.checks).to.have.length(RUN_OF_ONE_CHECKS);
          expect(run.complete).to.equal(true);
          for (const c of run.checks) expect(['pass', 'fail', 'skip', 'inconclusive']).to.include(c.verdict);
          expect(run.checks.filter((c) => c.verdict === 'fail').length, 'mutations are caught').to.be.above(0);
        } finally {
          proxy.fault = undefined;
        }
      });
    }
  });
});
