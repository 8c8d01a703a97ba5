// `npm run setup` (and `npm test` first): the Go tools the project runs, built once into the tools dir:
// k6 for load tests, geth as the second real client the conformance self-tests certify.
import { ensureGeth } from '../core/node/tools/geth.ts';
import { ensureK6 } from '../core/node/tools/k6.ts';

try {
  const k6 = await ensureK6();
  console.log(`k6 ${k6.version} (${k6.source}${k6.extension ? ', with k6/x/rpccertify' : ', without k6/x/rpccertify'}): ${k6.path}`);
  const geth = await ensureGeth();
  console.log(`geth ${geth.version} (${geth.source}): ${geth.path}`);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
}
