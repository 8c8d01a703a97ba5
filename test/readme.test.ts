// The README tells the truth: its first lines are the two set-up commands, and its check catalogue is the suite's.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { withTable } from '../scripts/readme-checks.ts';

describe('README', function () {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('opens with the two set-up commands', () => {
    const firstLines = readme.split('\n').slice(0, 6).join('\n');
    expect(firstLines).to.include('npm install && npm start');
    expect(firstLines).to.include('npm test');
  });

  it('lists every check of the suite, as `npm run docs` writes it', () => {
    expect(readme, 'run `npm run docs` after changing checks').to.equal(withTable(readme));
  });
});
