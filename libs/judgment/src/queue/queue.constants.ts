/**
 * Injection token: when a global provider supplies `true`, the library's queue processors never start their workers
 * (the `judgment` command line supplies it, so no command consumes a job). Absent, workers run as `runWorkers` says.
 */
export const JUDGMENT_WORKERS_DISABLED = Symbol('JUDGMENT_WORKERS_DISABLED');

/** Injection token of the assess queue (BullMQ's token of the queue named `queue.assessQueue`). */
export const ASSESS_QUEUE = Symbol('JUDGMENT_ASSESS_QUEUE');
/** Injection token of the decide queue (`queue.decideQueue`). */
export const DECIDE_QUEUE = Symbol('JUDGMENT_DECIDE_QUEUE');
/** Injection token of the review queue (`queue.reviewQueue`), holding the review deadlines as delayed jobs. */
export const REVIEW_QUEUE = Symbol('JUDGMENT_REVIEW_QUEUE');
/** Injection token of AssessQueues (each connection's assess queue), for code that must not load bullmq to name it. */
export const ASSESS_QUEUES = Symbol('JUDGMENT_ASSESS_QUEUES');
