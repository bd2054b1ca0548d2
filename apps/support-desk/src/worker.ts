/**
 * The support desk's queue worker: BullMQ processors only, no HTTP. It assesses dispatched Judgments, decides them
 * in the chained decide job, and runs the same event listeners (Actions, reviewer notifications) as the API.
 * `node -r ./scripts/register.js apps/support-desk/src/worker.ts` (docker-compose: the `worker` service).
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { supportDeskConfig } from './config/support-desk.config';
import { SupportDeskModule } from './support-desk.module';

async function bootstrap(): Promise<void> {
  const config = supportDeskConfig();
  if (!config.queue) {
    throw new Error(
      'The worker needs a queue: set REDIS_URL (or REDIS_HOST). Without one, dispatched Judgments run inline in ' +
        'the API process and no worker is needed.',
    );
  }
  const app = await NestFactory.createApplicationContext(SupportDeskModule.forRoot(config, 'worker'));
  app.enableShutdownHooks(); // SIGTERM: the workers drain their running jobs, then the app closes
  await app.init();
  new Logger('SupportDesk').log(`Worker running (queue prefix ${config.queue.prefix}).`);
}

bootstrap().catch((error: unknown) => {
  new Logger('SupportDesk').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
