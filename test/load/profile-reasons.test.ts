// Each load profile states the question it answers, and each figure of its SLO why it is that figure, in one
// line where they are defined (load/shared/profiles.ts): `load --help` prints them.
import { expect } from 'chai';
import { buildPlan, profileQuestion, PROFILES, sloReasons } from '../../load/shared/profiles.ts';
import { METHODS } from '../../core/methods.ts';

describe('load profiles: their questions and the reasons of their SLO figures', () => {
  for (const profile of PROFILES) {
    it(`${profile}: one question, and a reason for every figure of the SLO it plans with`, () => {
      const question = profileQuestion(profile);
      expect(question).to.match(/^[^\n]{20,}\?$/);
      const reasons = sloReasons(profile);
      const plan = buildPlan({ profile, methods: METHODS, seed: 1, ...(profile === 'capacity' ? { step: { subject: 'mix', rps: 50 } } : {}) });
      // The figures the reasons stand for are the ones a plan gets, one for one.
      expect(Object.fromEntries(reasons.map((r) => [r.figure, r.value]))).to.deep.equal(plan.slo);
      for (const r of reasons) expect(r.why, r.figure).to.match(/^[^\n]{20,}$/);
    });
  }
  it('the profiles ask different questions', () => {
    expect(new Set(PROFILES.map(profileQuestion)).size).to.equal(PROFILES.length);
  });
});
