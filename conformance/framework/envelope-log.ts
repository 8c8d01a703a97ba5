// The envelope of every single answer of a run, as the run's client hands them over (runner.ts): the checks of
// every-answer.ts name the first offender of each rule of core/envelope.ts and how many answers broke it.
import { type EnvelopeRule, envelopeBreaks } from '../../core/envelope.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

/** The first answer breaking each rule, how many did, and how many answers were judged. */
export class EnvelopeLog {
  answered = 0;
  firstAnswer: Exchange | undefined;
  readonly broken = new Map<EnvelopeRule, { first: Exchange; what: string; count: number }>();

  /** One exchange of a single call: judged when the endpoint answered it with JSON-RPC (other faults are the checks' to judge). */
  observe(ex: Exchange): void {
    if (ex.fault !== undefined || Array.isArray(ex.request)) return;
    const sentId = ex.request.id;
    this.answered++;
    this.firstAnswer ??= ex;
    for (const { rule, what } of envelopeBreaks({ sentId, ...pick(ex) })) {
      const known = this.broken.get(rule);
      if (known) known.count++;
      else this.broken.set(rule, { first: ex, what, count: 1 });
    }
  }
}

function pick(ex: Exchange) {
  return { ...(ex.httpStatus !== undefined ? { httpStatus: ex.httpStatus } : {}), ...(ex.contentType !== undefined ? { contentType: ex.contentType } : {}), ...(ex.idToken !== undefined ? { idToken: ex.idToken } : {}), body: ex.body };
}
