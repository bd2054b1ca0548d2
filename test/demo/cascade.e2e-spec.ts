// The demo's escalation cascade (post-moderation: the simulator's OpenAI mode first, then Jev), through the demo app's
// HTTP API on PostgreSQL with both simulators started in-process over real HTTP: a post the cheap tier is sure of is
// decided there, one it leaves in the Review band is decided by Jev, one both leave there is held for a moderator; and
// the demo's CLI explains the path from the records, as a separate process.
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AssessmentRecords } from 'nestjs-judgment';
import { EngineSetup } from '../../apps/support-desk/src/config/engine-setup';
import { supportDeskConfig } from '../../apps/support-desk/src/config/support-desk.config';
import { PostsService } from '../../apps/support-desk/src/moderation/posts.service';
import { SupportDeskModule } from '../../apps/support-desk/src/support-desk.module';
import { databaseUrl, recreateDatabase } from '../support/postgres';
import { freshCloneEnv, run } from './support';

const DATABASE = 'judgment_demo_cascade';

let app: INestApplication;
let base: string;
let records: AssessmentRecords;
let engines: EngineSetup;

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  const env = freshCloneEnv({ JUDGMENT_LOG: 'false', DATABASE_URL: databaseUrl(DATABASE) });
  app = await NestFactory.create(SupportDeskModule.forRoot(supportDeskConfig(env)), {
    logger: false,
    abortOnError: false,
  });
  await app.listen(0, '127.0.0.1');
  base = await app.getUrl();
  records = app.get(AssessmentRecords);
  engines = app.get(EngineSetup);
});

afterAll(() => app?.close());

/** Creates a post over the demo's HTTP API (assessed inline); its response and its records (one per tier asked). */
async function post(body: string) {
  const response = await fetch(`${base}/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ author: 'tester', body }),
  });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { post: { id: number; status: string }; outcome: unknown };
  const subject = await app.get(PostsService).find(created.post.id);
  const trail = (await records.forSubject(subject)).sort((a, b) => a.id - b.id);
  return { created, trail };
}

const cascadeOf = (record: { provenanceDetails: Record<string, unknown> | null }) => record.provenanceDetails?.cascade;

it('a post the cheap tier is sure of is decided there: Jev is never asked', async () => {
  const { created, trail } = await post('Lovely release, thanks! [[p=0.02]]');
  expect(created.post.status).toBe('published');
  expect(trail).toHaveLength(1);
  expect(trail[0]).toMatchObject({ engine: 'openai', outcome: 'publish', reviewRequestedAt: null });
  expect(cascadeOf(trail[0])).toEqual({ tier: 1, of: 2, connection: 'openai', escalatedFrom: null });
  // Both tiers answer from the simulators started in-process (no OPENAI_BASE_URL, no TYPESAFE_API_KEY).
  expect(engines.simulators.openai?.url).toBe(engines.engineUrl('openai'));
  expect(engines.simulators.jev?.url).toBe(engines.engineUrl('jev'));
});

it('a post the cheap tier leaves in the Review band is asked of Jev, which decides it', async () => {
  const { created, trail } = await post(
    'FREE FOLLOWERS at spam.example [[harms.spam=0.6]] [[noul:harms.spam=0.97]] [[p=0.02]]',
  );
  expect(created.post.status).toBe('removed');
  const [cheap, strong] = trail;
  expect(trail).toHaveLength(2);
  expect(cheap).toMatchObject({ engine: 'openai', outcome: 'hold', reviewRequestedAt: null });
  expect(cheap.decisionTrace?.escalated).toEqual({ tier: 2, connection: 'jev' });
  expect(strong).toMatchObject({ engine: 'jev', outcome: 'remove', reviewRequestedAt: null });
  expect(cascadeOf(strong)).toEqual({ tier: 2, of: 2, connection: 'jev', escalatedFrom: cheap.id });

  // The demo's CLI, a separate process on the same database, explains the path from either record.
  const env = freshCloneEnv({ DATABASE_URL: databaseUrl(DATABASE), JUDGMENT_LOG: 'false' });
  const explained = await run(
    'node',
    ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', 'explain', String(cheap.id)],
    env,
  );
  expect(explained.code).toBe(0);
  expect(explained.stdout).toMatch(new RegExp(`tier 1 \\(openai, [^)]*\\), record #${cheap.id}: .*escalated`));
  expect(explained.stdout).toMatch(new RegExp(`tier 2 \\(jev, [^)]*\\), record #${strong.id}: .*decided remove`));
});

it('a post both tiers leave in the Review band is held for a moderator on the last tier only', async () => {
  const { created, trail } = await post('You people are clueless. [[harms.harassment=0.6]] [[p=0.02]]');
  expect(created.post.status).toBe('held');
  expect(trail.map((record) => [record.engine, record.outcome, record.reviewRequestedAt !== null])).toEqual([
    ['openai', 'hold', false],
    ['jev', 'hold', true],
  ]);
  const awaiting = await records.awaitingReview({ judgment: 'post-moderation' });
  expect(awaiting.map((record) => record.id)).toContain(trail[1].id);
  expect(awaiting.map((record) => record.id)).not.toContain(trail[0].id);
});
