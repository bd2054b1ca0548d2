/** BullMQ queueing of `judge.dispatch()` (static: it decides whether the BullMQ modules are imported). */
export interface JudgmentQueueOptions {
  /** Queue jobs on BullMQ (default false: dispatch() runs inline, no Redis needed). */
  enabled?: boolean;
  /** Name of the assess queue (default `judgment-assess`). */
  assessQueue?: string;
  /** Name of the decide queue (default `judgment-decide`). */
  decideQueue?: string;
  /** The BullModule.forRoot configKey the queues use. */
  configKey?: string;
  /** Attempts of an assess job (default 1; each attempt is a paid Engine round). */
  attempts?: number;
  /** Attempts of a decide job (default 3). */
  decideAttempts?: number;
  /** Backoff of the decide job (default exponential, 1000 ms). */
  backoff?: { type: 'fixed' | 'exponential'; delay: number };
  /** Worker concurrency of each processor (default 1). */
  concurrency?: number;
}
