// `npx tsx scripts/setup-k6.ts`: finds or builds k6 alone (core/node/tools/k6.ts), as `rpc-certify doctor` suggests.
import { ensureK6 } from '../core/node/tools/k6.ts';

ensureK6().then(
  (k6) => console.log(`k6 ${k6.version} (${k6.source}): ${k6.path}`),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  },
);
