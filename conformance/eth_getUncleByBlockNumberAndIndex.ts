// §4.3 eth_getUncleByBlockNumberAndIndex: the uncle at an index of a block named by number or tag, or null.
import { MethodSuite } from './framework/check.ts';
import { futureBlock } from './framework/common.ts';
import { uncleChecks } from './framework/uncle-checks.ts';
import { uncleHashCheck } from './framework/invariant-checks.ts';
import { atHead } from './framework/head.ts';
import { APART, latestNotBehind } from './framework/latest-fresh.ts';

const suite = new MethodSuite('eth_getUncleByBlockNumberAndIndex', 'conformance/eth_getUncleByBlockNumberAndIndex.ts');
export default suite;

uncleChecks(suite, '4.3', (ref) => ref.number, (t) => futureBlock(t.targets));

for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized']) {
  suite.check(
    { id: `eth_getUncleByBlockNumberAndIndex/tag-${tag}`, clause: [{ section: '1' }, { section: '4.3' }], layer: 'spec', title: `the block tag "${tag}" is accepted: an uncle object or null`, covers: [`tag:${tag}`] },
    async (t) => {
      const uncle = await t.result(suite.method, [tag, '0x0'], { fresh: true });
      if (uncle !== null) t.expectShape('uncle', uncle);
    },
  );
}

suite.check(
  { id: 'eth_getUncleByBlockNumberAndIndex/latest-is-head', clause: [{ section: '1', part: 'block tag' }, { section: '4.3' }], layer: 'spec', title: 'the tag latest at index 0 returns the head block\'s first uncle (null when it lists none), bracketed by the head number and hash; retried when the head moves', covers: ['tag:latest'], ties: ['tag.latest'] },
  async (t) =>
    atHead(
      t,
      () => t.result<{ hash?: unknown } | null>(suite.method, ['latest', '0x0'], { fresh: true }),
      (uncle, head) => {
        const first = head.uncles[0];
        if (first === undefined) return t.expectEqual(uncle, null, `the head block ${head.number} lists no uncles: latest at index 0 must be null`, '/result');
        if (uncle === null) return t.fail(`latest at index 0 returned null, but the head block ${head.number} lists ${head.uncles.length} uncle(s)`, { pointer: '/result', expected: first });
        t.expectEqual(uncle.hash, first, `latest at index 0 must be the first uncle the head block ${head.number} lists`, '/result/hash');
      },
    ),
);

// An uncle names no block of the head (its own number is older): this method's latest is tied to the head by
// latest-is-head, and the head latest names is judged here.
latestNotBehind(suite, '4.3', 'this method\'s latest at index 0 (asked; an uncle names no head block)', [], async (t) => {
  await t.result(suite.method, ['latest', '0x0'], APART);
  return { what: `${suite.method}("latest", "0x0")` };
});

// Invariant layer: the uncle's hash recomputed from the header this method serves.
uncleHashCheck(suite, '4.3', (ref) => ref.number);
