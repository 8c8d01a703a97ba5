// The one rule for tests that need a real binary (k6, geth) built into the tools dir: where it is missing
// they skip, saying so, except under CI (CI=true, as CI runs .ci/run), where a missing binary would let
// the second real client or the real k6 runs go quiet: there it fails the suite instead.
import type { Context } from 'mocha';
import { findGeth } from '../../core/node/tools/geth.ts';
import { findK6 } from '../../core/node/tools/k6.ts';
import type { ToolBinary } from '../../core/node/tools/go-install.ts';

const FINDERS = { k6: findK6, geth: findGeth } satisfies Record<string, () => Promise<ToolBinary | undefined>>;
type Found<N extends keyof typeof FINDERS> = NonNullable<Awaited<ReturnType<(typeof FINDERS)[N]>>>;

/** CI's own marker: CI=true (also 1 or yes), as CI services and .ci/run's runner set it. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(true|1|yes)$/i.test(env['CI']?.trim() ?? '');
}

/** The binary, found without building anything; missing: the test skips, or under CI throws (fails the hook or test). */
export async function requireTool<N extends keyof typeof FINDERS>(ctx: Context, name: N): Promise<Found<N>> {
  const found = (await FINDERS[name]()) as Found<N> | undefined;
  if (found) return found;
  const why = `${name} is not built (not in the tools dir nor on PATH): \`npm run setup\` builds it (needs Go)`;
  if (underCi()) throw new Error(`${why}; under CI=true a missing ${name} fails the suite rather than skipping its tests`);
  ctx.skip();
}
