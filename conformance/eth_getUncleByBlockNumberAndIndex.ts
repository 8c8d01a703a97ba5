// §4.3 eth_getUncleByBlockNumberAndIndex: the uncle at an index of a block named by number or tag, or null.
import { MethodSuite } from './framework/check.ts';
import { futureBlock } from './framework/common.ts';
import { uncleChecks } from './framework/uncle-checks.ts';
import { uncleHashCheck } from './framework/invariant-checks.ts';

const suite = new MethodSuite('eth_getUncleByBlockNumberAndIndex');
export default suite;

uncleChecks(suite, '§4.3', (ref) => ref.number, (t) => futureBlock(t.targets));

for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized']) {
  suite.check(
    { intent: `tag-${tag}`, clause: '§1, §4.3', layer: 'spec', title: `the block tag "${tag}" is accepted: an uncle object or null`, covers: [`tag:${tag}`] },
    async (t) => {
      const uncle = await t.result(suite.method, [tag, '0x0'], { fresh: true });
      if (uncle !== null) t.expectShape('uncle', uncle);
    },
  );
}

// Invariant layer: the uncle's hash recomputed from the header this method serves.
uncleHashCheck(suite, '§4.3', (ref) => ref.number);
