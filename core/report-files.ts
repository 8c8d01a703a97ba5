// The files each command writes in --out: named once, for the writers and for a run that clears what an earlier one left.

export const CONFORMANCE_FILES = { json: 'conformance.json', junit: 'conformance.junit.xml', html: 'conformance.html' } as const;

export const LOAD_FILES = { json: 'load.json', html: 'load.html', junit: 'load.junit.xml', corpus: 'load.corpus.json' } as const;
