/**
 * Injection token: when a global provider supplies `true`, the library's queue processors never start their workers
 * (the `judgment` command line supplies it, so no command consumes a job). Absent, workers run as `runWorkers` says.
 */
export const JUDGMENT_WORKERS_DISABLED = Symbol('JUDGMENT_WORKERS_DISABLED');
