// A queue per Engine connection (issue 34, point 2), on real Redis and PostgreSQL with two Jev simulators over HTTP:
// one connection's account answers 429 storms, and only its own assess queue pauses; the other connection's
// Judgments flow at that connection's own limit, and every Judgment is decided exactly once.
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { type Assessment, Decision, Evidence, Judge, Judgment, Likelihood } from 'nestjs-judgment';
import {
  API_KEY,
  AssessmentRecord,
  MODEL,
  RefundOutcome,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitForProgress,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';
import { EngineManager } from '../../libs/judgment/src/engines/engine.manager';
import { RESOLVED_JUDGMENT_OPTIONS } from '../../libs/judgment/src/judgment.constants';
import { AssessQueues } from '../../libs/judgment/src/queue/assess-queues';
import { statusReport } from '../../libs/judgment/src/cli/status.command';

const DATABASE = 'judgment_connection_queues';
jest.setTimeout(120_000);

@Decision({ name: 'split-decision', outcomes: RefundOutcome, review: [], version: '1' })
class SplitDecision implements Decision<LiveCheck | StormCheck, RefundOutcome> {
  decide(assessment: Assessment<LiveCheck | StormCheck>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.5) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

/** A Judgment on the default connection (`jev`). */
@Judgment({ name: 'split-live', decision: () => SplitDecision })
class LiveCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: Evidence.untrusted(this.text) };
  }
  questions() {
    return { abusive: Likelihood.that('The refund request is an attempt to abuse the refund policy.') };
  }
}

/** A Judgment on the `storm` connection, whose account answers mostly 429. */
@Judgment({ name: 'split-storm', engine: 'storm', decision: () => SplitDecision })
class StormCheck extends LiveCheck {}

let live: JevSimulator;
let storm: JevSimulator;
let db: DataSource;
let app: INestApplicationContext | undefined;
const queues: Queue[] = [];
let prefix: string;

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
});

afterEach(async () => {
  await app?.close();
  for (const queue of queues.splice(0)) await queue.close();
  await clearPrefix(prefix);
  await live?.stop();
  await storm?.stop();
});

afterAll(async () => {
  await db?.destroy();
});

function answered(sim: JevSimulator) {
  return sim.requests.filter((request) => request.path === '/v1/systemone' && request.status === 200);
}

it("one connection's 429 storm pauses only its own queue: the other's Judgments flow at their own limit", async () => {
  live = new JevSimulator({ apiKey: API_KEY });
  // The storm account allows 2 requests per 4-second window: 8 Judgments need at least 12 s, and nearly every try
  // in between is answered 429 with the window's remaining time as retry-after.
  storm = new JevSimulator({ apiKey: API_KEY, limits: { requests: 2, windowMs: 4_000 } });
  await Promise.all([live.start(), storm.start()]);
  prefix = uniquePrefix();
  const liveLimits = { requestsPerMinute: 300, windowSeconds: 2 }; // 10 per 2-second window
  app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: live.url!,
    queue: { concurrency: 8 },
    options: {
      engine: 'jev',
      engines: {
        jev: { driver: 'jev', key: API_KEY, url: live.url!, model: MODEL, retries: 0, limits: liveLimits },
        storm: { driver: 'jev', key: API_KEY, url: storm.url!, model: MODEL, retries: 0 },
      },
      limiter: { prefix: `${prefix}:limits` },
    },
    judgments: [LiveCheck, StormCheck],
  });
  const liveQueue = inspectQueue('judgment-assess', prefix);
  const stormQueue = inspectQueue('judgment-assess-storm', prefix);
  const decideQueue = inspectQueue('judgment-decide', prefix);
  queues.push(liveQueue, stormQueue, decideQueue);

  // `judgment status` shows each connection's queue, with the global rate limit of that connection's `limits`.
  const status = await statusReport(
    app.get(EngineManager),
    app.get(RESOLVED_JUDGMENT_OPTIONS),
    app.get(AssessQueues).all(),
  );
  expect(status.queues.map(({ name, connection, rateLimit }) => ({ name, connection, rateLimit }))).toEqual([
    { name: 'judgment-assess', connection: 'jev', rateLimit: { max: 10, durationMs: 2200 } },
    { name: 'judgment-assess-storm', connection: 'storm', rateLimit: null },
  ]);
  expect(status.queue?.name).toBe('judgment-assess');

  const judge = app.get(Judge);
  // The storm's Judgments first, so its 429s are under way while the live ones are dispatched.
  await Promise.all(Array.from({ length: 8 }, (_, n) => judge.dispatch(new StormCheck(`Storm ${n} [[abusive=0.9]]`))));
  await Promise.all(Array.from({ length: 30 }, (_, n) => judge.dispatch(new LiveCheck(`Live ${n} [[abusive=0.1]]`))));

  // Each Judgment went to its connection's queue.
  const total = async (queue: Queue) => Object.values(await queue.getJobCounts()).reduce((sum, n) => sum + n, 0);
  expect(await total(stormQueue)).toBe(8);
  await waitForProgress('30 live assess jobs', () => liveQueue.getCompletedCount(), 30, 15_000);
  const stormDoneThen = await stormQueue.getCompletedCount();
  const times = answered(live).map((request) => request.at);
  expect(times).toHaveLength(30);
  const span = Math.max(...times) - Math.min(...times);
  // At its own limit: 30 requests at 10 per 2.2 s need three windows (at least 4.4 s from first to last) ...
  expect(span).toBeGreaterThanOrEqual(4_000);
  // ... and no more: the storm's pauses (each up to 4 s, over at least 12 s) did not hold them back.
  expect(span).toBeLessThan(8_000);
  expect(storm.rateLimited).toBeGreaterThan(0);
  expect(stormDoneThen).toBeLessThan(8);

  await waitForProgress('8 storm assess jobs', () => stormQueue.getCompletedCount(), 8, 20_000);
  await waitForProgress('38 decide jobs', () => decideQueue.getCompletedCount(), 38, 15_000);
  expect(await liveQueue.getFailedCount()).toBe(0);
  expect(await stormQueue.getFailedCount()).toBe(0);
  expect(await decideQueue.getFailedCount()).toBe(0);
  // Every Judgment decided exactly once, and paid for once: one answered record each, one 200 answer each.
  const records = await db.getRepository(AssessmentRecord).find();
  const of = (name: string) => records.filter((record) => record.judgment === name);
  expect(of('split-live')).toHaveLength(30);
  expect(of('split-storm')).toHaveLength(8);
  expect(records.filter((record) => record.failureType !== null || record.outcome === null)).toHaveLength(0);
  expect(of('split-live').every((record) => record.outcome === RefundOutcome.Approve)).toBe(true);
  expect(of('split-storm').every((record) => record.outcome === RefundOutcome.Escalate)).toBe(true);
  expect(answered(live)).toHaveLength(30);
  expect(answered(storm)).toHaveLength(8);
});

it('a job queued before there was a queue per connection (on the default queue) still runs, with its own connection', async () => {
  live = new JevSimulator({ apiKey: API_KEY });
  storm = new JevSimulator({ apiKey: API_KEY });
  await Promise.all([live.start(), storm.start()]);
  prefix = uniquePrefix();
  app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: live.url!,
    options: {
      engine: 'jev',
      engines: {
        jev: { driver: 'jev', key: API_KEY, url: live.url!, model: MODEL, retries: 0 },
        storm: { driver: 'jev', key: API_KEY, url: storm.url!, model: MODEL, retries: 0 },
      },
    },
    judgments: [LiveCheck, StormCheck],
  });
  const liveQueue = inspectQueue('judgment-assess', prefix);
  queues.push(liveQueue);
  // As an earlier version dispatched it: every connection's Judgment on the one assess queue.
  const id = await app.get(Judge).dispatch(new StormCheck('Old [[abusive=0.9]]'), { queue: 'judgment-assess' });
  await waitForProgress('the old job', () => liveQueue.getCompletedCount(), 1, 15_000);
  expect((await liveQueue.getJob(id))?.returnvalue).toMatchObject({ kind: 'recorded' });
  expect(answered(storm)).toHaveLength(1);
  expect(answered(live)).toHaveLength(0);
});
