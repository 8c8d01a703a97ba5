// What the reports are called and what they call the embedded default: named once, for the writers, a run that clears
// what an earlier one left, and the reports of a run against the embedded default (whose URL is gone when it ends).

export const CONFORMANCE_FILES = { json: 'conformance.json', junit: 'conformance.junit.xml', html: 'conformance.html' } as const;

export const LOAD_FILES = { json: 'load.json', html: 'load.html', junit: 'load.junit.xml', corpus: 'load.corpus.json' } as const;

/** The endpoint's name in a report of the embedded default: its URL (a free port, a random key) is dead once the run ends. */
export const EMBEDDED_ENDPOINT = 'the embedded default (seeded anvil behind the reference gateway)';
