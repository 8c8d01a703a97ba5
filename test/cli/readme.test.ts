// The docs tell the truth: the README's first lines are the two set-up commands, the check catalogue
// (docs/checks.md) is the suite's, and every link between the README and docs/ leads to a file that exists.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { withClauses, withTable } from '../../scripts/readme-checks.ts';

describe('README', function () {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('opens with the two set-up commands', () => {
    const firstLines = readme.split('\n').slice(0, 6).join('\n');
    expect(firstLines).to.include('npm install && npm start');
    expect(firstLines).to.include('npm test');
  });

  it('lists every check of the suite in docs/checks.md, as `npm run docs` writes it', () => {
    const catalogue = readFileSync(new URL('../../docs/checks.md', import.meta.url), 'utf8');
    expect(catalogue, 'run `npm run docs` after changing checks').to.equal(withTable(catalogue));
  });

  it('restates the spec in docs/spec.md, each clause with the checks that cite it, as `npm run docs` writes it', () => {
    const spec = readFileSync(new URL('../../docs/spec.md', import.meta.url), 'utf8');
    expect(spec, 'run `npm run docs` after changing a check\'s clause').to.equal(withClauses(spec));
    for (const clause of ['§4.8 eth_getBlockReceipts', '**Rule 1.** pending answers the same data as latest.', '**receiptsRoot**']) expect(spec).to.include(clause);
    expect(spec).to.match(/Rule 1\.\*\* pending answers the same data as latest\. Checked by: `eth_getBlockReceipts\/pending-equals-latest`/);
    expect(readme, 'the README points at the spec in the repository').to.include('docs/spec.md');
  });

  it('links only to files that exist, and to headings that exist', () => {
    const pages = ['README.md', ...readdirSync(new URL('../../docs/', import.meta.url)).map((f) => `docs/${f}`)];
    for (const page of pages) {
      const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const path = file ? join(dirname(page), file) : page;
        expect(existsSync(new URL(`../../${path}`, import.meta.url)), `${page} links to ${target}`).to.equal(true);
        if (anchor) expect(anchors(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')), `${page} links to ${target}`).to.include(anchor);
      }
    }
  });
});

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): string[] {
  return [...markdown.matchAll(/^#+ (.+)$/gm)].map(([, h]) => (h ?? '').toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-'));
}
