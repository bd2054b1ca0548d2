/**
 * The support desk's HTTP API: `node -r ./scripts/register.js apps/support-desk/src/main.ts` (docker-compose: the
 * `app` service). With a queue configured it only dispatches; worker.ts runs the jobs.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { supportDeskConfig } from './config/support-desk.config';
import { SupportDeskModule } from './support-desk.module';

async function bootstrap(): Promise<void> {
  const config = supportDeskConfig();
  const app = await NestFactory.create(SupportDeskModule.forRoot(config, 'api'));
  app.enableShutdownHooks();
  await app.listen(config.port);
  new Logger('SupportDesk').log(`HTTP API listening on port ${config.port}.`);
}

bootstrap().catch((error: unknown) => {
  new Logger('SupportDesk').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
