import { NestFactory } from '@nestjs/core';
import { QueuedAppModule } from './queue.module';

/** The worker process: no HTTP, only the assess and decide processors (and your event listeners). */
export async function startWorker() {
  const worker = await NestFactory.createApplicationContext(QueuedAppModule.forRoot('worker'));
  worker.enableShutdownHooks(); // on SIGTERM, running jobs finish before the process exits
  return worker;
}
