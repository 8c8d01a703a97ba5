// Bundles the k6 scenario with esbuild into one ES module k6 can run: k6 strips TypeScript types but
// cannot load npm packages. Ajv compiling the schemas at run time costs ~0.9 s per VU inside k6
// (measured), so the bundle carries validators generated here by Ajv standalone instead, behind a
// stand-in `Ajv` class, and core/schemas.ts runs unchanged on both sides.
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js'; // CJS: the default import is module.exports
import { build, type Plugin } from 'esbuild';
import { AJV_OPTIONS, shapeSchemas } from '../../core/schemas.ts';
import defs from '../../schemas/rpc/defs.json' with { type: 'json' };
import type { Plan } from '../shared/profiles.ts';

const ENTRY = fileURLToPath(new URL('../k6/scenario.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMAS_MODULE = fileURLToPath(new URL('../../core/schemas.ts', import.meta.url));

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

/** Resolves core/schemas.ts's `ajv` import to the precompiled validators. They load on a VU's first validation (without
 * the Go extension, the scenario has the VUs k6 starts before the test validate once in their init; with it, most VUs
 * never validate in JavaScript): compiling their patterns was a third of a VU's start-up, and k6 starts VUs mid-run when
 * a target slows down, the moment a generator can least afford it. */
export function precompiledAjv(): Plugin {
  return {
    name: 'precompiled-ajv',
    setup(b) {
      b.onResolve({ filter: /^ajv$/ }, (args) => (args.importer === SCHEMAS_MODULE ? { path: 'ajv', namespace: 'precompiled-ajv' } : undefined));
      b.onResolve({ filter: /^precompiled-validators$/, namespace: 'precompiled-ajv' }, () => ({ path: 'validators', namespace: 'precompiled-ajv' }));
      // The schemas core/schemas.ts hands to Ajv are compiled into the validators already: only their names are needed.
      b.onResolve({ filter: /\.json$/ }, (args) => (args.importer === SCHEMAS_MODULE ? { path: args.path, namespace: 'compiled-schema' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'compiled-schema' }, () => ({ contents: '{}', loader: 'json' }));
      b.onLoad({ filter: /^ajv$/, namespace: 'precompiled-ajv' }, () => ({ contents: lazyStandIn(), loader: 'js', resolveDir: REPO_ROOT }));
      b.onLoad({ filter: /^validators$/, namespace: 'precompiled-ajv' }, () => ({ contents: standaloneValidators(), loader: 'js', resolveDir: REPO_ROOT }));
    },
  };
}

const SCHEMA_IDS = Object.keys(shapeSchemas).map((name) => `${name}.json`);

/** A stand-in `Ajv` class whose getSchema requires the generated validators on first use (esbuild evaluates a bundled
 * CommonJS module where it is first required). */
function lazyStandIn(): string {
  const byId = SCHEMA_IDS.map((id, i) => `${JSON.stringify(id)}: v.v${i}`).join(', ');
  return `let byId;
export class Ajv {
  getSchema(id) {
    if (!byId) { const v = require('precompiled-validators'); byId = { ${byId} }; }
    return byId[id];
  }
}
`;
}

/** Ajv's standalone code for every shape, as a CommonJS module exporting v0, v1, … in SCHEMA_IDS order. */
function standaloneValidators(): string {
  // Same options as core/schemas.ts, so the generated validators report the same errors.
  const ajv = new Ajv({ ...AJV_OPTIONS, schemas: [defs, ...Object.values(shapeSchemas)], code: { source: true } });
  return standaloneCode.default(ajv, Object.fromEntries(SCHEMA_IDS.map((id, i) => [`v${i}`, id])));
}
