/** Injection token of the resolved JudgmentModule options. */
export { MODULE_OPTIONS_TOKEN as JUDGMENT_MODULE_OPTIONS } from './judgment.module-definition';

/** Injection token of the static extras given to `JudgmentModule.forRoot()` (queue, dataSource), resolved. */
export const JUDGMENT_EXTRAS = Symbol('JUDGMENT_EXTRAS');

/** Injection token of the app's TypeORM DataSource the records live in (null when the app has none for the module). */
export const JUDGMENT_DATA_SOURCE = Symbol('JUDGMENT_DATA_SOURCE');

/** Injection token of the ResolvedJudgmentOptions: the module options with their defaults, built once. */
export const RESOLVED_JUDGMENT_OPTIONS = Symbol('RESOLVED_JUDGMENT_OPTIONS');

/**
 * Injection token of the Redis client the connections' limits are counted on when `limiter.redis` is not given: the
 * queue provides a connection to its Redis; absent, limits are counted per process.
 */
export const JUDGMENT_LIMIT_REDIS = Symbol('JUDGMENT_LIMIT_REDIS');
