// A queued Judgment whose round fails after some of its Questions were answered (issue 27, point 5): the failed
// attempt's record holds those answers, the job keeps them in its progress, and its retry asks the Engine only the
// other Questions. Real Redis and PostgreSQL, the simulator's OpenAI mode over HTTP (one request per Question).
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { OpenAiSimulator } from 'nestjs-judgment/simulator';
import { AssessmentRecord, Evidence, Judge, Judgment, Likelihood } from 'nestjs-judgment';
import { finished, freshDatabase, inspectQueue, openDatabase, startQueueApp, uniquePrefix } from './queue.fixtures';
import { clearPrefix } from '../support/redis';

const DATABASE = 'judgment_queue_partial_round';
const KEY = 'sk-proj-partial-round-e2e';
const MODEL = 'sim-4o-2026-09-17';

let db: DataSource;
let sim: OpenAiSimulator;
let app: INestApplicationContext | undefined;
let assess: Queue | undefined;
const prefix = uniquePrefix();

/** Three Questions: three requests per round on the openai driver. */
@Judgment({ name: 'queue-post-review' })
class QueuedPostReview implements Judgment {
  constructor(readonly text: string) {}

  evidence() {
    return { post: Evidence.untrusted(this.text) };
  }

  questions() {
    return {
      toxic: Likelihood.that('Does the post insult someone?'),
      spam: Likelihood.that('Is the post unsolicited advertising?'),
      off: Likelihood.that('Is the post off topic for the forum?'),
    };
  }
}

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  sim = new OpenAiSimulator({ apiKey: KEY });
});

afterAll(async () => {
  await app?.close();
  await assess?.close();
  await clearPrefix(prefix);
  await sim?.stop();
  await db?.destroy();
});

it('a retried assess job reuses the answers its failed run paid for, and asks only the other Questions', async () => {
  const url = await sim.start();
  app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: url,
    judgments: [QueuedPostReview],
    queue: { attempts: 2, backoff: { type: 'fixed', delay: 10 } },
    options: {
      engine: 'openai',
      engines: {
        openai: { driver: 'openai', url, key: KEY, model: MODEL, retries: 0, maxConcurrency: 1 },
      },
    },
  });
  assess = inspectQueue('judgment-assess', prefix);
  // The first run: the first Question answered, the second unreadable.
  sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });

  const id = await app.get(Judge).dispatch(new QueuedPostReview('Buy watches [[toxic=0.1]] [[spam=0.9]] [[off=0.7]]'));
  const { state, job } = await finished(assess, id);

  expect(state).toBe('completed');
  expect(job.attemptsMade).toBe(2);
  const asked = sim.requests.filter((request) => request.path === '/v1/chat/completions');
  // 2 in the failed run, 2 in the retry: the answer to `toxic` was paid for once.
  expect(asked).toHaveLength(4);
  const [failed, answered] = await db.getRepository(AssessmentRecord).find({ order: { id: 'ASC' } });
  expect(failed).toMatchObject({ failureType: 'MalformedEngineResponse', answers: { toxic: expect.closeTo(0.1, 9) } });
  expect(answered.failureType).toBeNull();
  expect(Object.keys(answered.answers ?? {}).sort()).toEqual(['off', 'spam', 'toxic']);
  expect(answered.provenanceDetails).toMatchObject({ reused: { record: failed.id, questions: ['toxic'] } });
});
