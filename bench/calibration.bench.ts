/**
 * Calibration throughput: 1,000 labelled cases against the Jev simulator at 200 ms latency per Engine round, with
 * 16 rounds in flight, versus one at a time. At concurrency 1 only 100 cases run (20 s) and the time is extrapolated
 * to 1,000 (×10), which is exact enough because every round costs the same simulated 200 ms.
 * Run: node -r ./scripts/register.js bench/calibration.bench.ts
 */
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JevSimulator } from 'nestjs-judgment/simulator';
import {
  type Assessment,
  Classification,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  Likelihood,
} from 'nestjs-judgment';
import { Calibration, LabelledCase } from 'nestjs-judgment/calibration';

const LATENCY_MS = 200;
const CASES = 1_000;
const SERIAL_CASES = 100;
const KEY = 'apikey_bench';

enum TicketOutcome {
  Route = 'route',
  Review = 'review',
  Close = 'close',
}

@Judgment({ name: 'bench-ticket', decision: () => TicketDecision })
class TicketTriage implements Judgment {
  constructor(readonly ticket: { text: string }) {}

  evidence() {
    return { ticket: { text: Evidence.untrusted(this.ticket.text) } };
  }

  questions() {
    return {
      spam: Likelihood.that('Is this ticket spam?'),
      team: Classification.of('Which team should handle it?', ['billing', 'technical', 'sales', 'other']),
    };
  }
}

@Decision({ outcomes: TicketOutcome, review: [TicketOutcome.Review], version: '1' })
class TicketDecision implements Decision<TicketTriage, TicketOutcome> {
  decide(assessment: Assessment<TicketTriage>): TicketOutcome {
    const spam = assessment.likelihood('spam');
    if (spam.above(0.8)) return TicketOutcome.Close;
    if (spam.above(0.4)) return TicketOutcome.Review;
    return TicketOutcome.Route;
  }
}

function cases(count: number): LabelledCase<TicketTriage>[] {
  return Array.from({ length: count }, (_, index) => {
    const spam = (index % 10) / 10;
    const text = `Ticket ${index}: my invoice is wrong. [[spam=${spam}]]`;
    return LabelledCase.of(new TicketTriage({ text }), spam >= 0.8 ? TicketOutcome.Close : TicketOutcome.Route);
  });
}

async function main(): Promise<void> {
  const simulator = new JevSimulator({ latencyMs: LATENCY_MS, logRequests: false, apiKey: KEY });
  const url = await simulator.start(0);

  @Module({
    imports: [
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: { jev: { driver: 'jev', key: KEY, url, model: 'jev-1.13.0', timeout: 30 } },
        persistence: { enabled: false },
        dataSource: false,
        log: false,
      }),
      JudgmentModule.forFeature([TicketTriage]),
    ],
  })
  class BenchModule {}

  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  const calibration = app.get(Calibration).for(TicketTriage);

  const timed = async (count: number, concurrency: number) => {
    const begin = process.hrtime.bigint();
    const report = await calibration.cases(cases(count)).concurrency(concurrency).run();
    const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
    const assessed = report.results.reduce((sum, result) => sum + result.cases - result.unassessed, 0);
    if (assessed !== count) throw new Error(`Only ${assessed} of ${count} cases were assessed.`);
    return seconds;
  };

  await timed(16, 16); // warm up: connections, JIT
  const parallel = await timed(CASES, 16);
  const serialSample = await timed(SERIAL_CASES, 1);
  const serial = serialSample * (CASES / SERIAL_CASES);

  console.log(
    `Calibration of ${CASES} cases, Jev simulator at ${LATENCY_MS} ms per round (requests: ${simulator.requestCount})`,
  );
  console.log(`  concurrency 16: ${parallel.toFixed(2)} s (${(CASES / parallel).toFixed(1)} cases/s)`);
  console.log(
    `  concurrency  1: ${serial.toFixed(2)} s, extrapolated from ${SERIAL_CASES} cases in ${serialSample.toFixed(2)} s ` +
      `(${(SERIAL_CASES / serialSample).toFixed(2)} cases/s)`,
  );
  console.log(`  speed-up: ${(serial / parallel).toFixed(1)}× (target ≥ 12×; ideal 16×)`);

  await app.close();
  await simulator.stop();
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
