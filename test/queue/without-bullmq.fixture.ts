// Run as a child process by queue.e2e-spec.ts: an app with the queue disabled, in a process where bullmq,
// @nestjs/bullmq and ioredis cannot be resolved (as if not installed). Prints { id, outcome, loaded } as JSON.
import Module = require('node:module');

const missing = new Set(['bullmq', '@nestjs/bullmq', 'ioredis']);
const resolve = (Module as any)._resolveFilename;
(Module as any)._resolveFilename = function (request: string, ...rest: unknown[]) {
  if (missing.has(request))
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};

async function main() {
  const { Module: NestModule } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { Decision, Evidence, Judge, Judgment, JudgmentModule, Likelihood } = await import('nestjs-judgment');

  let outcome: unknown = null;

  @Decision({ name: 'no-queue-decision', outcomes: { Flagged: 'flagged', Fine: 'fine' } })
  class FlagDecision {
    decide(assessment: any) {
      outcome = assessment.likelihood('spam').above(0.5) ? 'flagged' : 'fine';
      return outcome;
    }
  }

  @Judgment({ name: 'no-queue-spam', decision: () => FlagDecision })
  class SpamCheck {
    constructor(readonly text: string) {}
    evidence() {
      return { post: Evidence.untrusted(this.text) };
    }
    questions() {
      return { spam: Likelihood.that('The post is spam.') };
    }
  }

  @NestModule({
    imports: [
      JudgmentModule.forRoot({
        engine: 'mock',
        engines: { mock: { driver: 'mock', model: 'mock-1.0.0' } },
        persistence: { enabled: false },
        log: false,
        dataSource: false,
        queue: { enabled: false },
      }),
      JudgmentModule.forFeature([SpamCheck]),
    ],
  })
  class AppModule {}

  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const judge = app.get(Judge);
  const id = await judge.dispatch(new SpamCheck('Buy cheap watches now!') as never);
  await app.close();
  const loaded = Object.keys(require.cache).filter((file) =>
    /node_modules\/(bullmq|@nestjs\/bullmq|ioredis)\//.test(file),
  );
  console.log(JSON.stringify({ id, outcome, loaded }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
