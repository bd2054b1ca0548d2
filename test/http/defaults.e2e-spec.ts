// JudgmentHttpModule refuses by default: without canView nobody reads, without a reviewer or a ResolutionPolicy
// nobody resolves; mounted under a prefix, its envelope covers its own path and nothing else. SQLite in memory and the
// mock Engine: these rules need no services.
import {
  type INestApplication,
  Injectable,
  type MiddlewareConsumer,
  Module,
  type NestMiddleware,
  type NestModule,
} from '@nestjs/common';
import { NestFactory, RouterModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  AssessmentRecord,
  AssessmentRecords,
  Judge,
  JudgmentModule,
  judgmentEntities,
  judgmentMigrations,
  type ResolutionPolicy,
  type Reviewer,
} from 'nestjs-judgment';
import { JudgmentHttpModule, type JudgmentHttpOptions } from 'nestjs-judgment/http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { NoteCheck } from '../support/note-check';

/** Sets `request.user` the way an authentication middleware would. */
@Injectable()
class FakeAuthentication implements NestMiddleware {
  use(request: { user?: unknown }, _response: unknown, next: () => void) {
    request.user = { type: 'user', id: 7 };
    next();
  }
}

/** Lets everyone resolve, and keeps the reviewers it was asked about. */
@Injectable()
class RecordingPolicy implements ResolutionPolicy {
  static readonly asked: Reviewer[] = [];
  canResolve(reviewer: Reviewer): boolean {
    RecordingPolicy.asked.push(reviewer);
    return true;
  }
}

/** Where the app mounts the adapter: a global prefix and a RouterModule path. */
interface Mount {
  readonly globalPrefix: string;
  readonly routerPath: string;
}

async function startApp(
  http: JudgmentHttpOptions,
  authenticated = false,
  resolutionPolicy?: typeof RecordingPolicy,
  mount?: Mount,
): Promise<INestApplication> {
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        migrations: judgmentMigrations,
        migrationsRun: true,
      }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, log: false, resolutionPolicy }),
      JudgmentModule.forFeature([NoteCheck]),
      JudgmentHttpModule.forRoot(http),
      ...(mount ? [RouterModule.register([{ path: mount.routerPath, module: JudgmentHttpModule }])] : []),
    ],
  })
  class AppModule implements NestModule {
    configure(consumer: MiddlewareConsumer) {
      if (authenticated) consumer.apply(FakeAuthentication).forRoutes('*path');
    }
  }
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  if (mount) app.setGlobalPrefix(mount.globalPrefix);
  await app.init();
  return app;
}

/** A record in Review: the mock Engine answers, NoteDecision always asks for a check. */
async function recordInReview(app: INestApplication): Promise<number> {
  const assessment = await app.get(Judge).assess(new NoteCheck('You again?'));
  await assessment.outcome();
  const [record] = await app.get(AssessmentRecords).awaitingReview({ judgment: 'note-check' });
  return record.id;
}

const opened: INestApplication[] = [];
afterAll(async () => {
  for (const app of opened) await app.close();
});

async function app(
  http: JudgmentHttpOptions,
  authenticated = false,
  resolutionPolicy?: typeof RecordingPolicy,
  mount?: Mount,
) {
  const started = await startApp(http, authenticated, resolutionPolicy, mount);
  opened.push(started);
  return { started, server: started.getHttpServer(), record: await recordInReview(started) };
}

it('without canView every read is forbidden', async () => {
  const { server, record } = await app({});
  const list = await request(server).get('/judgment/reviews').expect(403);
  expect(list.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('canView') });
  await request(server).get(`/judgment/records/${record}`).expect(403);
});

it('without reviewerFrom the reviewer is request.user, and a request without one is forbidden', async () => {
  const authenticated = await app({ canView: () => true }, true, RecordingPolicy);
  await request(authenticated.server)
    .post(`/judgment/records/${authenticated.record}/resolve`)
    .send({ resolution: 'keep' })
    .expect(200);
  expect(RecordingPolicy.asked).toEqual([{ type: 'user', id: 7 }]);

  const anonymous = await app({ canView: () => true }, false, RecordingPolicy);
  const { body } = await request(anonymous.server)
    .post(`/judgment/records/${anonymous.record}/resolve`)
    .send({ resolution: 'keep' })
    .expect(403);
  expect(body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('names no reviewer') });
  expect(RecordingPolicy.asked).toHaveLength(1);
});

it('without a ResolutionPolicy every resolve is forbidden, and the record stays in Review', async () => {
  const { started, server, record } = await app({ canView: () => true }, true);
  const { body } = await request(server).post(`/judgment/records/${record}/resolve`).send({ resolution: 'keep' });
  expect(body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('no ResolutionPolicy') });
  expect((await started.get(AssessmentRecords).find(record))!.isAwaitingReview()).toBe(true);
});

it("under a global prefix and a RouterModule path, the envelope covers the adapter's path and nothing else", async () => {
  const { server, record } = await app({ canView: () => true }, true, RecordingPolicy, {
    globalPrefix: 'api',
    routerPath: 'admin',
  });
  const base = '/api/admin/judgment';
  await request(server).get(`${base}/records/${record}`).expect(200);
  const malformed = await request(server)
    .post(`${base}/records/${record}/resolve`)
    .set('content-type', 'application/json')
    .send('{"resolution":');
  expect(malformed.status).toBe(400);
  expect(malformed.body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('JSON') });
  const unknown = await request(server).delete(`${base}/records/${record}`).expect(404);
  expect(unknown.body.error).toMatchObject({ code: 'not_found' });
  // Outside the adapter's path, the app's own answers: Nest's defaults under the prefix, Express's outside it.
  for (const path of ['/api/elsewhere', '/api/judgment/reviews']) {
    const { body } = await request(server).get(path).expect(404);
    expect(body).toMatchObject({ statusCode: 404 });
  }
  const outside = await request(server).get('/judgment/reviews').expect(404);
  expect(outside.type).toBe('text/html');
  const elsewhere = await request(server)
    .post('/api/judgment/records/1/resolve')
    .set('content-type', 'application/json')
    .send('{"resolution":');
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body).toMatchObject({ statusCode: 400 });
});

it('on SQLite the Review list sorts by deadline and by least confidence, pages each by after, and filters claimed by others', async () => {
  const { started, server } = await app({ canView: () => true }, true, RecordingPolicy);
  await recordInReview(started);
  await recordInReview(started);
  const [first, second, third] = (await started.get(AssessmentRecords).awaitingReview()).map((record) => record.id);
  const db = started.get(DataSource);
  const at = (minutes: number) => new Date(Date.now() + minutes * 60_000);
  // Deadlines: the third first, then the first; the second has none (last). Margins: second, third, first (none).
  await db.getRepository(AssessmentRecord).update(first, { reviewDeadlineAt: at(90), decisionMargin: null });
  await db.getRepository(AssessmentRecord).update(second, { reviewDeadlineAt: null, decisionMargin: 0.01 });
  await db.getRepository(AssessmentRecord).update(third, { reviewDeadlineAt: at(10), decisionMargin: 0.2 });
  await started.get(AssessmentRecords).claim(second, { type: 'user', id: 8 });

  const pages = async (query: string) => {
    const ids: number[] = [];
    let after: number | null = null;
    do {
      const response: request.Response = await request(server)
        .get(`/judgment/reviews?${query}&limit=1${after === null ? '' : `&after=${after}`}`)
        .expect(200);
      ids.push(...response.body.data.map((item: { id: number }) => item.id));
      after = response.body.page.nextAfter;
    } while (after !== null);
    return ids;
  };
  await expect(pages('sort=deadline')).resolves.toEqual([third, first, second]);
  await expect(pages('sort=confidence')).resolves.toEqual([second, third, first]);
  const others = await request(server).get('/judgment/reviews?claim=others&sort=deadline').expect(200);
  expect(others.body.data.map((item: { id: number }) => item.id)).toEqual([second]);
});
