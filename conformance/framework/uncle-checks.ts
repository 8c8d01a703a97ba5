// §4.3/§4.4: the two uncle lookups differ only in how they name the block, so one builder serves both.
import type { BlockRef } from '../../core/targets.ts';
import { toQuantity } from '../../core/hex.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import type { Section } from './clause.ts';
import { envelopeChecks, nullOnMiss } from './common.ts';
import { needHistory } from './history.ts';

/** This builder's file, for the catalogue: the ids it declares are composed from the suite's method. */
const HERE = 'conformance/framework/uncle-checks.ts';

type Uncle = Record<string, unknown> & { hash: string; transactions?: unknown[] };

export function uncleChecks(suite: MethodSuite, section: Section, blockParam: (ref: BlockRef) => string, missingBlock: (t: CheckContext) => string): void {
  const anyBlock = (t: CheckContext): BlockRef => t.targets.multiTxBlock ?? t.targets.head;

  envelopeChecks(suite, (t) => [blockParam(anyBlock(t)), '0x0'], () => ['0x12', 'not-an-index']);

  suite.check(
    { id: `${suite.method}/uncle-shape`, clause: [{ section }, { section: '2.2' }], layer: 'spec', title: 'each uncle of a block with uncles has the block shape, no individual transactions, totalDifficulty null, and the hash its block lists', covers: ['hit'], ties: ['block.hash', 'block.uncles'] },
    async (t) => {
      const block = await needHistory(t, t.targets.uncleBlock, 'block with uncles (per-network fixture; post-merge chains have none)', 'pre-merge');
      const parent = t.found(await t.result<{ uncles: string[] } | null>('eth_getBlockByHash', [block.hash, false]), `the fixture block ${block.hash} is not served (history pruned?)`);
      for (let i = 0; i < parent.uncles.length; i++) {
        const uncle = t.found(await t.result<Uncle | null>(suite.method, [blockParam(block), toQuantity(i)]), `uncle ${i} of a block listing ${parent.uncles.length} uncles returned null`);
        t.expectShape('uncle', uncle);
        t.expectEqual(uncle.hash, parent.uncles[i], 'the uncle hash must be the one its block lists at that index', '/result/hash');
      }
    },
    HERE,
  );

  nullOnMiss(suite, `${suite.method}/null-no-uncle`, [{ section }, { section: '7' }], 'an index past the last uncle of a block returns result null', async (t) => [blockParam(anyBlock(t)), toQuantity(await uncleCount(t, anyBlock(t)))], ['miss'], HERE);
  nullOnMiss(suite, `${suite.method}/null-unknown-block`, [{ section }, { section: '7' }], 'a block that does not exist returns result null', (t) => [missingBlock(t), '0x0'], ['miss'], HERE);
}

async function uncleCount(t: CheckContext, ref: BlockRef): Promise<number> {
  const block = await t.result<{ uncles: unknown[] } | null>('eth_getBlockByHash', [ref.hash, false]);
  return block?.uncles.length ?? 0;
}
