// Known deviations as a user feature (`--expect FILE`, schemas/files/expectations.json): checks an endpoint is
// expected to fail, each with a reason, an optional link and a review date. The runner notes the
// expectation on each check it concerns; conformance/report/model.ts turns the notes into outcomes: an
// expected failure does not fail the run, an expected failure that passes is an unexpected pass and does.
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import schema from '../../schemas/files/expectations.json' with { type: 'json' };

export interface Expectation {
  id: string;
  reason: string;
  /** A regular expression: only a failure whose reason matches is the expected one. */
  match?: string;
  link?: string;
  /** YYYY-MM-DD */
  review?: string;
}

export interface Expectations {
  /** Where the file was read from, as the user named it. */
  file: string;
  client?: string;
  fail: Expectation[];
  skip: Expectation[];
}

/** What a check result carries when the expectations file names it. */
export interface ExpectationNote {
  /** 'fail': the check is expected to fail; 'skip': expected to find no target on this endpoint. */
  kind: 'fail' | 'skip';
  reason: string;
  /** A regular expression: only a failure whose reason matches is the expected one. */
  match?: string;
  link?: string;
  review?: string;
  /** The review date has passed. */
  overdue?: boolean;
}

/** A file that cannot serve as expectations: unreadable, not JSON, off the schema, unknown or doubled ids. */
export class ExpectationsError extends Error {}

const validate = new Ajv({ allErrors: true, strict: false }).compile<Omit<Expectations, 'file'>>(schema);

/** `known`: every check id of the harness (checkIds(allSuites)), passed in so the framework imports no method file. */
export async function loadExpectations(file: string, known: ReadonlySet<string>): Promise<Expectations> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ExpectationsError(`--expect: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseExpectations(text, file, known);
}

export function parseExpectations(text: string, file: string, known: ReadonlySet<string>): Expectations {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ExpectationsError(`--expect: ${file} is not JSON: ${(err as Error).message}`);
  }
  if (!validate(value)) {
    const faults = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
    throw new ExpectationsError(`--expect: ${file} does not match schemas/files/expectations.json: ${faults.slice(0, 5).join('; ')}`);
  }
  const entries = [...value.fail, ...(value.skip ?? [])];
  // A misspelt id would never match: its check would fail "unexpectedly" with the reason lost, or a skip go undocumented.
  const unknown = entries.filter((e) => !known.has(e.id)).map((e) => e.id);
  if (unknown.length > 0) throw new ExpectationsError(`--expect: ${file} names checks this harness does not have: ${unknown.join(', ')} (see \`rpc-certify checks\`)`);
  const seen = new Set<string>();
  const doubled = entries.filter((e) => seen.size === seen.add(e.id).size).map((e) => e.id);
  if (doubled.length > 0) throw new ExpectationsError(`--expect: ${file} names a check more than once: ${doubled.join(', ')}`);
  const broken = entries.filter((e) => e.match !== undefined && !compiles(e.match)).map((e) => `${e.id} (${e.match})`);
  if (broken.length > 0) throw new ExpectationsError(`--expect: ${file} has a match that is not a regular expression: ${broken.join(', ')}`);
  return { file, ...(value.client ? { client: value.client } : {}), fail: value.fail, skip: value.skip ?? [] };
}

/** The note for a check the file names, if it does; `today` is YYYY-MM-DD (UTC). */
export function expectationFor(id: string, expectations: Expectations, today: string): ExpectationNote | undefined {
  const fail = expectations.fail.find((e) => e.id === id);
  const entry = fail ?? expectations.skip.find((e) => e.id === id);
  if (!entry) return undefined;
  return {
    kind: fail ? 'fail' : 'skip',
    reason: entry.reason,
    ...(entry.match ? { match: entry.match } : {}),
    ...(entry.link ? { link: entry.link } : {}),
    ...(entry.review ? { review: entry.review, ...(entry.review < today ? { overdue: true } : {}) } : {}),
  };
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
