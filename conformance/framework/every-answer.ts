// §1/§7: the envelope of every answer of the run, not only of the few exchanges the envelope checks make. The run's
// client hands each single call's answer to the log (runner.ts); these checks, last but one of the run, name the first
// offender of each rule and how many answers broke it. A cache that replays another request's answer (its id with
// it), an id echoed as 7.0, an answer served as text/plain, a result under HTTP 500: each fails wherever it happens.
import type { EnvelopeRule } from '../../core/envelope.ts';
import type { Layer, MethodSuite } from './check.ts';
import type { Clause } from './clause.ts';

const HERE = 'conformance/framework/every-answer.ts';

const RULES: ReadonlyArray<{ rule: EnvelopeRule; intent: string; clause: Clause; layer: Layer; title: string }> = [
  { rule: 'id', intent: 'every-answer-id', clause: { section: '1', part: 'id' }, layer: 'spec', title: 'every answer of the run echoes its request\'s id exactly as sent (its raw token: 7.0 or "7" is not 7)' },
  { rule: 'jsonrpc', intent: 'every-answer-jsonrpc', clause: [{ section: '1' }, { section: '9' }], layer: 'spec', title: 'every answer of the run carries jsonrpc "2.0"' },
  { rule: 'content-type', intent: 'every-answer-content-type', clause: { section: '1', part: 'transport' }, layer: 'spec', title: 'every answer of the run is served as Content-Type application/json (parameters allowed)' },
  { rule: 'status', intent: 'every-answer-status', clause: [{ section: '1', part: 'transport' }, { section: '7' }], layer: 'spec', title: 'every result and every revert (error 3) of the run comes in an HTTP 200' },
  { rule: 'error-status', intent: 'every-error-status', clause: { section: '7' }, layer: 'advisory', title: 'every other error of the run comes in an HTTP 200 too (the spec names no other status)' },
];

/** The checks, in the service suite: added after every other check but the head's (methods.ts), so they see the run's answers. */
export function everyAnswerChecks(suite: MethodSuite): void {
  for (const r of RULES) {
    suite.check(
      { id: `${suite.method}/${r.intent}`, clause: r.clause, layer: r.layer, title: r.title, alone: true },
      async (t) => {
        const log = t.envelopes;
        const broken = log.broken.get(r.rule);
        const sample = broken?.first ?? log.firstAnswer;
        if (!sample) return t.skip('judged nothing: no call of the run was answered');
        t.record(sample);
        if (!broken) return t.note(`${log.answered} answer(s) judged`);
        const req = broken.first.request as { method: string; params: unknown[] };
        t.fail(`${broken.count} of the run's ${log.answered} answers: first ${req.method}(${JSON.stringify(req.params).slice(1, -1).slice(0, 160)}): ${broken.what}`, { pointer: '' });
      },
      HERE,
    );
  }
}
