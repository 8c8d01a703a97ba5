// Bundles the k6 scenario with esbuild into one ES module k6 can run: k6 strips TypeScript types but
// cannot load npm packages. Ajv compiling the schemas at run time costs ~0.9 s per VU inside k6
// (measured), so the bundle carries validators generated here by Ajv standalone instead, behind a
// stand-in `Ajv` class, and core/schemas.ts runs unchanged on both sides.
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js'; // CJS: the default import is module.exports
import { build, type Plugin } from 'esbuild';
import { AJV_OPTIONS, shapeSchemas } from '../core/schemas.ts';
import defs from '../schemas/defs.json' with { type: 'json' };
import type { Plan } from './profiles.ts';

const ENTRY = fileURLToPath(new URL('./scenario.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCHEMAS_MODULE = fileURLToPath(new URL('../core/schemas.ts', import.meta.url));

export async function bundleScenario(plan: Plan, outfile: string): Promise<void> {
  await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    mainFields: ['module', 'main'],
    external: ['k6', 'k6/*'],
    define: { __PLAN__: JSON.stringify(plan) },
    plugins: [precompiledAjv()],
    logLevel: 'silent',
  });
}

/** Resolves core/schemas.ts's `ajv` import to the precompiled validators. */
export function precompiledAjv(): Plugin {
  return {
    name: 'precompiled-ajv',
    setup(b) {
      b.onResolve({ filter: /^ajv$/ }, (args) => (args.importer === SCHEMAS_MODULE ? { path: 'ajv', namespace: 'precompiled-ajv' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'precompiled-ajv' }, () => ({ contents: standaloneValidators(), loader: 'js', resolveDir: REPO_ROOT }));
    },
  };
}

function standaloneValidators(): string {
  // Same options as core/schemas.ts, so the generated validators report the same errors.
  const ajv = new Ajv({ ...AJV_OPTIONS, schemas: [defs, ...Object.values(shapeSchemas)], code: { source: true, esm: true } });
  const ids = Object.keys(shapeSchemas).map((name) => `${name}.json`);
  const exports = Object.fromEntries(ids.map((id, i) => [`v${i}`, id]));
  const byId = ids.map((id, i) => `${JSON.stringify(id)}: v${i}`).join(', ');
  return `${standaloneCode.default(ajv, exports)}\nconst byId = { ${byId} };\nexport class Ajv { getSchema(id) { return byId[id]; } }\n`;
}
