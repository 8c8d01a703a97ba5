// §4.4 eth_getUncleByBlockHashAndIndex: the uncle at an index of a block named by hash, or null.
import { MethodSuite } from './framework/check.ts';
import { nullOnZeroHash, UNKNOWN_HASH } from './framework/common.ts';
import { uncleChecks } from './framework/uncle-checks.ts';
import { uncleHashCheck } from './framework/invariant-checks.ts';

const suite = new MethodSuite('eth_getUncleByBlockHashAndIndex', 'conformance/eth_getUncleByBlockHashAndIndex.ts');
export default suite;

uncleChecks(suite, '4.4', (ref) => ref.hash, () => UNKNOWN_HASH);
nullOnZeroHash(suite, '4.4', 'the block hash', (hash) => [hash, '0x0']);

// Invariant layer: the uncle's hash recomputed from the header this method serves.
uncleHashCheck(suite, '4.4', (ref) => ref.hash);
