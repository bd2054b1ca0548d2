// The escalation cascade on the queue (issue 33, point 3): the decide job of a tier whose Outcome is in the Review band
// queues an assess job for the next tier on that connection's queue, chained to its own decide job. PostgreSQL, Redis,
// two Jev simulators over HTTP (one per connection), requests counted per connection.
import type { INestApplicationContext } from '@nestjs/common';
import { Judge } from 'nestjs-judgment';
import { QueuedClaim, cascadeEngines } from './cascade.fixtures';
import { JevSimulator } from 'nestjs-judgment/simulator';
import type { DataSource } from 'typeorm';
import { clearPrefix } from '../support/redis';
import {
  API_KEY,
  AssessmentRecord,
  finished,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitFor,
} from './queue.fixtures';

const DATABASE = 'judgment_queue_cascade';

let cheap: JevSimulator;
let strong: JevSimulator;
let app: INestApplicationContext | undefined;
let db: DataSource;
let prefix: string;

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  cheap = new JevSimulator({ apiKey: API_KEY });
  strong = new JevSimulator({ apiKey: API_KEY });
  await Promise.all([cheap.start(), strong.start()]);
});

afterAll(async () => {
  await app?.close();
  await db?.destroy();
  await Promise.all([cheap?.stop(), strong?.stop()]);
  if (prefix) await clearPrefix(prefix);
});

const asked = (sim: JevSimulator) => sim.requests.filter((request) => request.path === '/v1/systemone').length;

it('a band case is asked of the next tier by a chained job on its connection queue; a sure one is not', async () => {
  prefix = uniquePrefix();
  app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: cheap.url!,
    judgments: [QueuedClaim],
    options: cascadeEngines(cheap.url!, strong.url!),
  });
  const judge = app.get(Judge);
  const sure = await judge.dispatch(new QueuedClaim('Stolen bike. [[fraud=0.95]]'));
  const banded = await judge.dispatch(new QueuedClaim('Flooded cellar. [[fraud=0.7]]'));
  const closest = await judge.dispatch(new QueuedClaim('Lost luggage. [[fraud=0.5]]'));

  const records = db.getRepository(AssessmentRecord);
  const all = await waitFor('five decided records', async () => {
    const rows = await records.find({ order: { id: 'ASC' } });
    return rows.length === 5 && rows.every((row) => row.outcome !== null) && rows;
  });
  expect(asked(cheap)).toBe(3);
  expect(asked(strong)).toBe(2);

  const byTier = (tier: number) =>
    all.filter((row) => (row.provenanceDetails?.cascade as { tier: number }).tier === tier);
  expect(
    byTier(1)
      .map((row) => [row.outcome, row.reviewRequestedAt === null])
      .sort(),
  ).toEqual([
    ['check', true],
    ['check', true],
    ['refuse', true],
  ]);
  const second = byTier(2);
  expect(second.map((row) => [row.outcome, row.reviewCause]).sort()).toEqual([
    ['check', 'band'],
    ['refuse', null],
  ]);
  for (const row of second) {
    const from = all.find((r) => r.id === (row.provenanceDetails?.cascade as { escalatedFrom: number }).escalatedFrom);
    expect(from).toMatchObject({ outcome: 'check', decisionTrace: { escalated: { tier: 2, connection: 'strong' } } });
  }

  // The jobs: the next tier's assess job is on the strong connection's queue, one per dispatch, with its decide job.
  const strongQueue = inspectQueue('judgment-assess-strong', prefix);
  const decideQueue = inspectQueue('judgment-decide', prefix);
  try {
    for (const id of [banded, closest]) {
      const base = id.replace(/^assess-/, '');
      const { state } = await finished(strongQueue, `assess-${base}-tier2`);
      expect(state).toBe('completed');
      expect((await finished(decideQueue, `decide-${base}-tier2`)).state).toBe('completed');
    }
    expect(await strongQueue.getJob(`assess-${sure.replace(/^assess-/, '')}-tier2`)).toBeUndefined();
  } finally {
    await Promise.all([strongQueue.close(), decideQueue.close()]);
  }
});
