// Figure 1, generator overhead: the harness (runLoad, gate profile: classification and sampled schema
// validation on) against a minimal hand-written k6 script sending the same call, side by side against
// the same fast loopback responder. The rate asked of both is the highest k6 reaches here: the bare
// script's own ceiling, closed loop. The bare script then runs the harness's own k6 scenario (same
// executor and VU limits), so the only difference left is what each does per request. A third script,
// the floor, is the bare one plus only the one metric sample the harness records for an ok answer: what
// any harness that keeps mergeable per-request latency in k6 costs at least; the judged floor adds what judging each
// answer exactly costs at the least (its corpus line read, its answer recognised as the sampled one). A peer row runs vegeta
// (flood's engine, which classifies nothing) at the same rates. Then all again at a rate all keep up
// with, where CPU per request is the generator's cost without saturation effects (k6 starting VUs for
// iterations it cannot serve). CPU per request counts the generator's CPU while it sends only.
import { type BareLevel, CEILING, cpuMsPerRequest as cpuMs, fastest, harnessScenario, leastCpu, round, runBare, runCeiling, runHarness, saveFigure, startResponder, whileSending } from './support/lib.ts';
import { runVegeta, VEGETA_VERSION } from './support/vegeta.ts';

/** The steady rate: half what the harness reached flat out, at most this. */
const STEADY_RPS = 2000;
/** A generator below this share of the asked rate did not keep up with it. */
const SATURATED = 0.98;

const responder = await startResponder('fast');

/** The runs as a tuple, each keeping its own result type. */
const runs = <T extends unknown[]>(...list: T): T => list;

/** Each generator asked for `rps`, its figures taken while it sends. */
function generatorsAt(rps: number) {
  const sending = <T extends { cpuSec: number; requests: number }>(run: () => Promise<T>) => () => whileSending(responder, run);
  const bare = (level: BareLevel) => sending(() => runBare(responder.url, harnessScenario(rps, CEILING.sec), CEILING.sec, level));
  return runs(bare('bare'), bare('floor'), bare('judged'), sending(() => runHarness(responder.url, rps, CEILING.sec)), sending(() => runVegeta(responder, rps, CEILING.sec)));
}

try {
  const [ceiling] = await fastest([() => runCeiling(responder.url)]);
  const { rate } = ceiling;
  const [bare, floor, judged, harness, vegeta] = await fastest(generatorsAt(rate));
  const share = harness.rps / bare.rps;
  // The figure is about a rate k6 cannot exceed: if both kept up with it, the ceiling run was starved
  // (the machine's other tenants), and the share says nothing.
  const saturated = Math.min(bare.rps, harness.rps) < SATURATED * rate;
  const steady = Math.min(STEADY_RPS, Math.floor(harness.rps / 200) * 100);
  const [bareSteady, floorSteady, judgedSteady, harnessSteady, vegetaSteady] = await leastCpu(generatorsAt(steady));
  const steadyRatio = cpuMs(harnessSteady) / cpuMs(bareSteady);
  await saveFigure('overhead', {
    askedRps: rate,
    ceiling: { rps: round(ceiling.rps), cpuMsPerRequest: cpuMs(ceiling), vus: CEILING.vus },
    bare: { rps: round(bare.rps), cpuMsPerRequest: cpuMs(bare) },
    harness: { rps: harness.rps, dropped: harness.dropped, cpuMsPerRequest: cpuMs(harness) },
    harnessShare: round(share, 3),
    floor: { rps: round(floor.rps), cpuMsPerRequest: cpuMs(floor), share: round(floor.rps / bare.rps, 3) },
    judged: { rps: round(judged.rps), cpuMsPerRequest: cpuMs(judged), share: round(judged.rps / bare.rps, 3) },
    vegeta: { rps: round(vegeta.rps), cpuMsPerRequest: cpuMs(vegeta) },
    saturated,
    steady: { rps: steady, bareCpuMsPerRequest: cpuMs(bareSteady), floorCpuMsPerRequest: cpuMs(floorSteady), judgedCpuMsPerRequest: cpuMs(judgedSteady), harnessCpuMsPerRequest: cpuMs(harnessSteady), vegetaCpuMsPerRequest: cpuMs(vegetaSteady), harnessRatio: round(steadyRatio, 3) },
    rows: [
      [`k6 ceiling (bare script, closed loop, ${CEILING.vus} VUs, fastest of 2)`, `${round(ceiling.rps, 0)} rps, ${cpuMs(ceiling)} ms CPU/request`, '-', 'n/a'],
      [
        `Generator overhead (both asked for ${rate} rps, same k6 scenario, fastest of 2)`,
        `${saturated ? '' : 'NOT SATURATED (both kept up: the ceiling run was starved; run again): '}harness ${round(harness.rps, 0)} rps vs bare ${round(bare.rps, 0)} rps = ${round(share * 100, 1)}%; CPU/request ${cpuMs(harness)} vs ${cpuMs(bare)} ms (×${round(cpuMs(harness) / cpuMs(bare), 1)})`,
        '≥ 75% of bare',
        !saturated ? 'unclear' : share >= 0.75 ? 'yes' : 'no',
      ],
      [
        `Floor: bare + only the harness's one metric sample of an ok answer (asked for ${rate} rps, fastest of 2)`,
        `${round(floor.rps, 0)} rps = ${round((floor.rps / bare.rps) * 100, 1)}% of bare; CPU/request ${cpuMs(floor)} ms`,
        '-',
        'n/a',
      ],
      [
        `Judged floor: the floor + reading each request's corpus line and recognising its answer exactly (asked for ${rate} rps, fastest of 2)`,
        `${round(judged.rps, 0)} rps = ${round((judged.rps / bare.rps) * 100, 1)}% of bare; CPU/request ${cpuMs(judged)} ms`,
        '-',
        'n/a',
      ],
      [`Peer: vegeta ${VEGETA_VERSION} asked for ${rate} rps (classifies nothing, fastest of 2)`, `${round(vegeta.rps, 0)} rps = ${round((vegeta.rps / bare.rps) * 100, 1)}% of bare k6; CPU/request ${cpuMs(vegeta)} ms`, '-', 'n/a'],
      [
        `Generator cost at ${steady} rps (all keep up, least CPU of 2)`,
        `CPU/request harness ${cpuMs(harnessSteady)} ms, judged floor ${cpuMs(judgedSteady)} ms, floor ${cpuMs(floorSteady)} ms, bare ${cpuMs(bareSteady)} ms, vegeta ${cpuMs(vegetaSteady)} ms (harness ×${round(steadyRatio, 2)}, judged floor ×${round(cpuMs(judgedSteady) / cpuMs(bareSteady), 2)}, floor ×${round(cpuMs(floorSteady) / cpuMs(bareSteady), 2)}, vegeta ×${round(cpuMs(vegetaSteady) / cpuMs(bareSteady), 2)} of bare)`,
        '≤ 1.3× bare',
        steadyRatio <= 1.3 ? 'yes' : 'no',
      ],
    ],
  });
} finally {
  responder.stop();
}
